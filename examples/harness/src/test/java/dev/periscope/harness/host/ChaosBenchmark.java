package dev.periscope.harness.host;

import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.BrowserProcesses;
import dev.periscope.harness.FaultPages;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * The load benchmark of issue 14 (not part of ./test; run by {@code ./bench chaos}): agent sessions
 * in one in-process host acting on local pages, with a random fault injected into each session
 * every so many actions, then one long session without faults for memory. Prints what completed,
 * what was injected and recovered, the transitions recorded against the actions issued, call
 * latency with and without faults, the host's RSS and Chromium's process count along the way, and
 * the processes left after the host stopped. The project gives the pool 8 browsers and starts none
 * with the host, so each of up to 8 sessions has a browser of its own, started inside one of its
 * calls: killing "this session's" driver, Chromium or renderers then hits that session alone.
 *
 * <p>Arguments: {@code [sessions=8] [actions=100] [faultEvery=25] [longActions=1000] [seed=14]}.
 */
public final class ChaosBenchmark {
  private static final String PROJECT =
      TestProjects.LOOPBACK_ONLY
          + """
          actionTimeoutMs: 3000
          navigationTimeoutMs: 5000
          timeoutMarginMs: 1000
          livenessTimeoutMs: 1500
          pool:
            browsers: 8
            prelaunch: false
      """;

  enum Fault {
    KILL_CHROMIUM,
    KILL_RENDERER,
    KILL_DRIVER,
    WEDGE_IN_CLICK,
    WEDGE_WHILE_IDLE,
    ALLOCATE,
    ALERT_LOOP,
    REDIRECT_LOOP,
    NEVER_ANSWERS,
    MUTATING_PAGE
  }

  private final LoginSite site;
  private final Host host;
  private final HarnessHome home;
  private final Path projectDir;

  /** Which Node.js driver belongs to which agent's environment (environment id → driver). */
  private final Map<String, ProcessHandle> drivers = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Held by the one agent whose calls may open a browser (its first, a fault's and the one after
   * it): a driver that appears meanwhile is its own, which is how a fault that kills processes
   * finds this agent's and no other's.
   */
  private final Object opening = new Object();

  private final AtomicInteger unmapped = new AtomicInteger();

  /** The driver of each agent's latest browser. */
  private final Map<String, ProcessHandle> agentDrivers =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final List<Long> quietLatencies = Collections.synchronizedList(new ArrayList<>());
  private final List<Long> faultLatencies = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger actionsIssued = new AtomicInteger();
  private final AtomicInteger actionsCompleted = new AtomicInteger();
  private final AtomicInteger transitionsIssued = new AtomicInteger();
  private final AtomicInteger faultsInjected = new AtomicInteger();
  private final AtomicInteger faultsRecovered = new AtomicInteger();
  private final AtomicInteger faultsRecoveredLater = new AtomicInteger();
  private final Map<Fault, AtomicInteger> injectedByKind =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final AtomicLong rssAt100 = new AtomicLong();
  private final AtomicInteger actionsAdmitted = new AtomicInteger();
  private final Map<String, AtomicInteger> callsBy = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Set while a fault is injected and the call after it runs: their latencies are counted apart.
   */
  private final ThreadLocal<Boolean> faulted = ThreadLocal.withInitial(() -> false);

  private final Map<Fault, List<Long>> faultCallMs = new java.util.concurrent.ConcurrentHashMap<>();
  private final ThreadLocal<Fault> injecting = new ThreadLocal<>();

  private ChaosBenchmark(LoginSite site, Host host, HarnessHome home, Path projectDir) {
    this.site = site;
    this.host = host;
    this.home = home;
    this.projectDir = projectDir;
  }

  public static void main(String[] args) throws Exception {
    int sessions = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    int actions = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int faultEvery = args.length > 2 ? Integer.parseInt(args[2]) : 25;
    int longActions = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
    long seed = args.length > 4 ? Long.parseLong(args[4]) : 14;
    Path homeDir = Files.createTempDirectory("chaos-home-");
    Path projectDir = Files.createTempDirectory("chaos-project-");
    Set<ProcessHandle> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
    Thread watcher = watch(seen);
    try (LoginSite site =
        pages(FaultPages.addTo(new LoginSite(), new java.util.concurrent.CountDownLatch(1)))) {
      HarnessHome home = new HarnessHome(homeDir);
      PluginInstaller.add(home, "p", HarnessProcess.PACKAGE, false);
      TestProjects.project(projectDir, PROJECT);
      System.out.printf(
          "Chaos benchmark: %d sessions x %d actions, a random fault every %d actions (seed %d), then"
              + " one session of %d actions without faults; actionTimeoutMs 3000, navigationTimeoutMs 5000,"
              + " timeoutMarginMs 1000, livenessTimeoutMs 1500%n%n",
          sessions, actions, faultEvery, seed, longActions);
      try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
        ChaosBenchmark bench = new ChaosBenchmark(site, host, home, projectDir);
        bench.load(sessions, actions, faultEvery, seed);
        for (int i = 0; i < sessions; i++) {
          host.endSession(
              "load-" + i); // their browsers close: what the memory phase counts is its own
        }
        bench.memory(longActions);
      }
    } finally {
      Thread.sleep(2000);
      watcher.interrupt();
      long left = seen.stream().filter(ProcessHandle::isAlive).count();
      System.out.printf(
          "%nProcesses left after the host stopped: %d (of %d the host started)%n",
          left, seen.size());
      PluginInstaller.deleteTree(homeDir);
      PluginInstaller.deleteTree(projectDir);
    }
  }

  private static Thread watch(Set<ProcessHandle> seen) {
    Thread t =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                ProcessHandle.current().descendants().forEach(seen::add);
                try {
                  Thread.sleep(50);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static LoginSite pages(LoginSite site) {
    return site.page(
        "/work",
        """
            <h1>Work</h1><p id="n">0</p>
            <button onclick="document.getElementById('n').textContent = ++window.count || (window.count = 1)">Add</button>
            <input aria-label="Note" onchange="document.title = this.value">""");
  }

  // The load phase

  private void load(int sessions, int actions, int faultEvery, long seed) throws Exception {
    long start = System.nanoTime();
    ExecutorService agents =
        Executors.newFixedThreadPool(
            sessions,
            r -> {
              Thread t = new Thread(r, "chaos-agent");
              t.setDaemon(true); // a failed run must not keep the JVM up
              return t;
            });
    List<Future<?>> running = new ArrayList<>();
    for (int i = 0; i < sessions; i++) {
      String agent = "load-" + i;
      Random random = new Random(seed + i);
      running.add(
          agents.submit(
              () -> {
                agent(agent, actions, faultEvery, random);
                return null;
              }));
    }
    for (Future<?> f : running) {
      f.get();
    }
    agents.shutdown();
    long seconds = (System.nanoTime() - start) / 1_000_000_000;
    int recorded = recordedActions(sessions);
    System.out.printf("Load: %d s%n", seconds);
    System.out.printf(
        "  actions completed       %d of %d issued%n", actionsCompleted.get(), actionsIssued.get());
    System.out.printf(
        "  faults injected         %d %s%n",
        faultsInjected.get(),
        injectedByKind.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> e.getKey().name().toLowerCase().replace('_', '-') + " " + e.getValue())
            .collect(Collectors.joining(", ", "(", ")")));
    System.out.printf(
        "  faults recovered        %d of %d (the session's next call works, logged in); %d more on the"
            + " call after, the fault having come during the next one%n",
        faultsRecovered.get(), faultsInjected.get(), faultsRecoveredLater.get());
    if (unmapped.get() > 0) {
      System.out.printf(
          "  (%d process kills became a wedged click: that browser had opened unwatched)%n",
          unmapped.get());
    }
    System.out.printf(
        "  transitions recorded    %d for %d actions the browser admitted (%d lost; %d more actions were"
            + " refused before, as stale)%n",
        recorded,
        actionsAdmitted.get(),
        Math.max(0, actionsAdmitted.get() - recorded),
        transitionsIssued.get() - actionsAdmitted.get());
    System.out.printf(
        "  call latency, no fault  p50 %d ms, p95 %d ms (%d calls)%n",
        percentile(quietLatencies, 50), percentile(quietLatencies, 95), quietLatencies.size());
    System.out.printf(
        "  call latency, faults    p50 %d ms, p95 %d ms (%d calls: injecting a fault, and the call after)%n",
        percentile(faultLatencies, 50), percentile(faultLatencies, 95), faultLatencies.size());
    faultCallMs.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                System.out.printf(
                    "    %-22s calls %s ms%n",
                    e.getKey().name().toLowerCase().replace('_', '-'), e.getValue()));
    System.out.printf(
        "  host RSS                %d MiB after 100 actions, %d MiB after %d; Chromium processes now %d%n",
        rssAt100.get() >> 20, rss() >> 20, actionsIssued.get(), chromiumProcesses());
  }

  private void agent(String agent, int actions, int faultEvery, Random random) {
    ToolResult login;
    synchronized (opening) {
      login = call(agent, "browser_open", Map.of("url", site.url("/login")));
    }
    call(agent, "browser_click", target(login, "Log in"));
    int nextFault = faultEvery;
    while (calls(agent) < actions) {
      if (calls(agent) >= nextFault) {
        Fault fault = Fault.values()[random.nextInt(Fault.values().length)];
        faulted.set(true);
        try {
          synchronized (opening) {
            inject(agent, fault);
          }
        } finally {
          faulted.set(false);
        }
        nextFault += faultEvery;
        continue;
      }
      ToolResult r = call(agent, "browser_open", Map.of("url", site.url("/work")));
      if (!r.isError() && calls(agent) < actions) {
        call(agent, "browser_click", target(r, "Add"));
      }
      if (calls(agent) % 7 == 0 && calls(agent) < actions) {
        call(agent, "browser_observe", Map.of());
      }
    }
  }

  private int calls(String agent) {
    return callsBy.computeIfAbsent(agent, a -> new AtomicInteger()).get();
  }

  /**
   * Injects one fault into the agent's own browser, then checks that its next call works, logged
   * in.
   */
  private void inject(String agent, Fault fault) {
    injecting.set(fault);
    try {
      injectNow(agent, fault);
    } finally {
      injecting.remove();
    }
  }

  private void injectNow(String agent, Fault fault) {
    faultsInjected.incrementAndGet();
    injectedByKind.computeIfAbsent(fault, f -> new AtomicInteger()).incrementAndGet();
    switch (fault) {
      case KILL_CHROMIUM, KILL_RENDERER, KILL_DRIVER -> {
        ToolResult r = call(agent, "browser_observe", Map.of());
        ProcessHandle driver = driverOf(r);
        if (driver == null) {
          // This environment opened outside a watched call (a fault nobody injected): its driver is
          // unknown.
          unmapped.incrementAndGet();
          call(
              agent,
              "browser_click",
              target(call(agent, "browser_open", Map.of("url", site.url("/wedge"))), "Wedge now"));
          break;
        }
        Set<ProcessHandle> browser = driver.descendants().collect(Collectors.toSet());
        switch (fault) {
          case KILL_DRIVER -> driver.destroyForcibly();
          case KILL_CHROMIUM -> BrowserProcesses.browserProcess(browser).destroyForcibly();
          default ->
              BrowserProcesses.pageRenderers(browser).forEach(ProcessHandle::destroyForcibly);
        }
      }
      case WEDGE_IN_CLICK ->
          call(
              agent,
              "browser_click",
              target(call(agent, "browser_open", Map.of("url", site.url("/wedge"))), "Wedge now"));
      case WEDGE_WHILE_IDLE ->
          call(
              agent,
              "browser_click",
              target(
                  call(agent, "browser_open", Map.of("url", site.url("/wedge"))), "Wedge later"));
      case ALLOCATE ->
          call(
              agent,
              "browser_click",
              target(
                  call(agent, "browser_open", Map.of("url", site.url("/allocate"))), "Allocate"));
      case ALERT_LOOP ->
          call(
              agent,
              "browser_click",
              target(call(agent, "browser_open", Map.of("url", site.url("/alerts"))), "Alerts"));
      case REDIRECT_LOOP -> call(agent, "browser_open", Map.of("url", site.url("/loop")));
      case NEVER_ANSWERS -> call(agent, "browser_open", Map.of("url", site.url("/never")));
      case MUTATING_PAGE -> {
        ToolResult r = call(agent, "browser_open", Map.of("url", site.url("/mutate")));
        if (!r.isError()) {
          call(agent, "browser_click", target(r, "Count"));
        }
      }
    }
    try {
      Thread.sleep(
          1000); // a pause, as an agent thinks: what happens while no call runs is part of the
      // fault
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ToolResult next = call(agent, "browser_open", Map.of("url", site.url("/home")));
    if (loggedIn(next)) {
      faultsRecovered.incrementAndGet();
      return;
    }
    // A page that wedges on a timer can do so while this very call runs (timers slip on a busy
    // machine): then
    // this call is the one the fault broke, and says so; the one after it must work.
    if (next.text().contains("lease=rebuilt")) {
      ToolResult after = call(agent, "browser_open", Map.of("url", site.url("/home")));
      if (loggedIn(after)) {
        faultsRecoveredLater.incrementAndGet();
        return;
      }
      next = after;
    }
    System.out.println("  not recovered after " + fault + ": " + next.text().replace('\n', ' '));
  }

  private static boolean loggedIn(ToolResult r) {
    return !r.isError()
        && r.text().contains("Welcome back, keeper")
        && r.text().contains("Theme: dark");
  }

  /**
   * Runs a call that may open a browser, holding {@link #opening}: the driver that appears is this
   * call's.
   */
  private ToolResult opened(String agent, java.util.function.Supplier<ToolResult> call) {
    Set<ProcessHandle> before = nodeDrivers();
    ToolResult r = call.get();
    Set<ProcessHandle> started = nodeDrivers();
    started.removeAll(before);
    String environment = (String) observation(r).get("environment_id");
    if (environment != null && started.size() == 1) {
      drivers.put(environment, started.iterator().next());
      agentDrivers.put(agent, started.iterator().next());
    } else if (environment != null && started.isEmpty()) {
      // No browser started: a fresh context on the browser this agent already had (after its page
      // crashed, its browser stayed), as the pool gives one browser to each of up to 8 agents.
      ProcessHandle previous = agentDrivers.get(agent);
      if (previous != null && previous.isAlive()) {
        drivers.put(environment, previous);
      }
    }
    return r;
  }

  private static Set<ProcessHandle> nodeDrivers() {
    return ProcessHandle.current()
        .children()
        .filter(ProcessHandle::isAlive)
        .filter(p -> p.info().command().map(c -> c.endsWith("/node")).orElse(false))
        .collect(Collectors.toSet());
  }

  /** The Node.js driver of the environment a result came from, if its opening was watched. */
  private ProcessHandle driverOf(ToolResult r) {
    ProcessHandle driver = drivers.get((String) observation(r).get("environment_id"));
    return driver != null && driver.isAlive() ? driver : null;
  }

  // The memory phase

  private void memory(int longActions) {
    String agent = "long";
    call(agent, "browser_open", Map.of("url", site.url("/work")));
    long rss100 = 0;
    long heap100 = 0;
    int chromium100 = 0;
    long start = System.nanoTime();
    for (int n = 1; n <= longActions; n++) {
      ToolResult r =
          n % 10 == 1
              ? call(agent, "browser_open", Map.of("url", site.url("/work")))
              : call(agent, "browser_observe", Map.of());
      if (!r.isError()) {
        call(agent, "browser_click", target(r, "Add"));
      }
      if (n == 100) {
        System.gc();
        rss100 = rss();
        heap100 = heapInUse();
        chromium100 = chromiumProcesses();
      }
    }
    System.gc();
    long rssEnd = rss();
    int chromiumEnd = chromiumProcesses();
    System.out.printf(
        "%nMemory: one session, %d actions (each an open or observation and a click), %d s%n",
        longActions, (System.nanoTime() - start) / 1_000_000_000);
    System.out.printf(
        "  host RSS                %d MiB after 100, %d MiB after %d (%.2fx); heap in use after a"
            + " collection %d MiB, then %d MiB%n",
        rss100 >> 20,
        rssEnd >> 20,
        longActions,
        rss100 == 0 ? 0 : (double) rssEnd / rss100,
        heap100 >> 20,
        heapInUse() >> 20);
    System.out.printf(
        "  Chromium processes      %d after 100, %d after %d%n",
        chromium100, chromiumEnd, longActions);
  }

  // Measures

  private int recordedActions(int sessions) throws Exception {
    Path db = home.profile("p").data().resolve("browser_runtime.sqlite");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        PreparedStatement q =
            c.prepareStatement(
                "SELECT COUNT(*) FROM transitions t JOIN agent_sessions a"
                    + " ON a.browser_session = t.browser_session WHERE a.agent_session LIKE 'load-%'"
                    + " AND t.action_kind NOT IN ('fault', 'recover')");
        ResultSet r = q.executeQuery()) {
      return r.next() ? r.getInt(1) : 0;
    }
  }

  private static long rss() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException e) {
      return 0;
    }
    return 0;
  }

  private static long heapInUse() {
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }

  private static int chromiumProcesses() {
    return (int)
        ProcessHandle.current()
            .descendants()
            .filter(p -> p.info().command().map(c -> c.contains("chrom")).orElse(false))
            .count();
  }

  private static long percentile(List<Long> values, int p) {
    List<Long> sorted;
    synchronized (values) {
      sorted = new ArrayList<>(values);
    }
    if (sorted.isEmpty()) {
      return 0;
    }
    Collections.sort(sorted);
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
  }

  /**
   * A call of the load phase, timed and counted; one made while holding {@link #opening} notes the
   * driver of a browser it opened. An action the browser admitted (not refused before, for a stale
   * ref, say) must leave a transition whatever happened to it.
   */
  private ToolResult call(String agent, String tool, Map<String, Object> args) {
    long start = System.nanoTime();
    ToolResult r =
        Thread.holdsLock(opening)
            ? opened(agent, () -> host.call(agent, tool, args, Cancellation.none()))
            : host.call(agent, tool, args, Cancellation.none());
    if (!agent.startsWith("load-")) {
      return r;
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    (faulted.get() ? faultLatencies : quietLatencies).add(ms);
    if (injecting.get() != null) {
      faultCallMs
          .computeIfAbsent(injecting.get(), f -> Collections.synchronizedList(new ArrayList<>()))
          .add(ms);
    }
    callsBy.computeIfAbsent(agent, a -> new AtomicInteger()).incrementAndGet();
    if (actionsIssued.incrementAndGet() == 100) {
      rssAt100.set(rss());
    }
    if (!r.isError()) {
      actionsCompleted.incrementAndGet();
    }
    if (!tool.equals("browser_observe")) {
      transitionsIssued.incrementAndGet();
      String line = r.text().lines().reduce((a, b) -> b).orElse("");
      boolean refusedBefore =
          r.isError()
              && line.matches(
                  "code=BROWSER_(STALE_REFERENCE|OBSERVATION_REQUIRED"
                      + "|INVALID_ARGUMENT|INVALID_URL|ENVIRONMENT_CLOSED|ACTION_CANCELLED) .*");
      if (!refusedBefore) {
        actionsAdmitted.incrementAndGet();
      }
    }
    return r;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> observation(ToolResult r) {
    Object o = r.structured() == null ? null : r.structured().get("observation");
    return o == null ? Map.of() : (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> target(ToolResult r, String name) {
    Map<String, Object> o = observation(r);
    for (Object e : (List<Object>) o.getOrDefault("elements", List.of())) {
      Map<String, Object> element = (Map<String, Object>) e;
      if (name.equals(element.get("name"))) {
        return Map.of("observation_id", o.get("id"), "element_ref", element.get("ref"));
      }
    }
    return Map.of(
        "observation_id", String.valueOf(o.getOrDefault("id", "none")), "element_ref", "e1");
  }
}
