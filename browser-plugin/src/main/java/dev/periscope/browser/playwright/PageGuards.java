package dev.periscope.browser.playwright;

import com.google.gson.JsonObject;
import com.microsoft.playwright.CDPSession;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.Request;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.ProviderElement;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What keeps a tab from opening pages on its own and from handing anything to the system: the
 * in-page guards (guards.js) record what they block, and let a new window open only in answer to
 * the agent's own input (the environment makes it a tab); a Chromium control session reports
 * scripted navigations to other programs ({@code location.href = 'mailto:…'}); downloads are
 * cancelled as they start unless an action's are kept, and the environment closes any page that
 * appears with no action behind it.
 *
 * <p>What the page blocked while an action ran fails that action with {@code
 * BROWSER_POLICY_DENIED}. What it did while no action ran (a popup or download, and the dialogs
 * {@link PageDialogs} dismisses) becomes a page event of the next observation instead, so it never
 * fails an unrelated action.
 *
 * <p>Playwright delivers these events only while a call runs on the lane's thread (the driver pumps
 * them while idle, see {@link Lane}), so the handlers only count and cancel; none of them holds the
 * page until the next call.
 */
final class PageGuards implements ActionStage {
  /** The kinds of request a page's script makes for data (a search as you type). */
  private static final java.util.Set<String> DATA = java.util.Set.of("fetch", "xhr");

  /**
   * The page's requests for data that have not ended yet, each with its number in the order they
   * started (TypingReactions waits for those its keys started).
   */
  private final java.util.Map<com.microsoft.playwright.Request, Long> dataUnderWay =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final java.util.concurrent.atomic.AtomicLong dataStarted =
      new java.util.concurrent.atomic.AtomicLong();

  /** The number of the last request for data started so far. */
  long dataMark() {
    return dataStarted.get();
  }

  /** How many requests for data started after {@code mark} have not ended yet. */
  int dataUnderWaySince(long mark) {
    int n = 0;
    for (long started : dataUnderWay.values()) {
      if (started > mark) {
        n++;
      }
    }
    return n;
  }

  private static final Set<String> BROWSER_OWNED =
      Set.of("http", "https", "javascript", "blob", "data", "about");
  private static final int MAX_PAGE_EVENTS = 20;

  private final Page page;
  private final CDPSession control;
  private final String registryKey;
  private final long navigationTimeoutMs;
  private final AtomicInteger downloads = new AtomicInteger();

  /** Downloads cancelled because the action had kept as many as one may. */
  private final AtomicInteger pastLimit = new AtomicInteger();

  private int attributedPastLimit;

  /** Downloads that started (kept or not), when the last did, and how many before the action. */
  private final Arrivals startedDownloads = new Arrivals();

  /** How long an action waits at most for the downloads its download links started. */
  static final long DOWNLOADS_WAIT_MS = 5_000;

  /** How long it waits for more once one has started. */
  static final long MORE_DOWNLOADS_WAIT_MS = 1_000;

  /** What the environment blocked outside this page (a page it closed): drained by each read. */
  private final java.util.function.Supplier<List<String>> outside;

  /** Told how many new windows the document opened during an action, to wait for them. */
  private final java.util.function.IntConsumer opened;

  /**
   * The main frame's navigation requests under way, each with when its response came ({@link
   * System#nanoTime()}), or {@link #NO_ANSWER}: until the document commits, or the request finishes
   * or fails without one (a download, a 204).
   */
  private final Map<Request, Long> underWay = new java.util.concurrent.ConcurrentHashMap<>();

  private static final long NO_ANSWER = Long.MIN_VALUE;

  /**
   * How long after its response a navigation still counts as under way without its document: one
   * whose end no event told of is not taken for one forever.
   */
  private static final long ANSWERED_GRACE_NS = 10_000_000_000L;

  private volatile String destination = "";
  private final List<String> externalNavigations = new ArrayList<>();
  private final List<String> pageEvents = new ArrayList<>();
  private int attributedDownloads;

  /**
   * File choosers the page opened outside {@link #choosing}: Playwright intercepts every chooser
   * once a listener is there, so none reaches the system, whatever the page did to the in-page
   * guard (whose registry a page script can find).
   */
  private final AtomicInteger fileChoosers = new AtomicInteger();

  private int attributedChoosers;

  /**
   * When the waits after an action end at the latest ({@link System#nanoTime()}): before the
   * action's own deadline, so that the action answers within it.
   */
  private final java.util.function.LongSupplier waitsEnd;

  private final Lane lane;

  /** Whether the environment is closing: then a closed page is its doing, not the page's. */
  private final java.util.function.BooleanSupplier ending;

  /** What becomes of this page when it is given up: its tab gets a fresh one in its place. */
  private final Runnable giveUp;

  private boolean choosing;

  /**
   * Guards one tab; {@code outside} drains what the environment blocked outside the page, and
   * {@code opened} waits for the windows an action opened to arrive as tabs.
   */
  PageGuards(
      Page page,
      CDPSession control,
      String registryKey,
      long navigationTimeoutMs,
      java.util.function.Supplier<List<String>> outside,
      java.util.function.IntConsumer opened,
      Lane lane,
      java.util.function.LongSupplier waitsEnd,
      java.util.function.BooleanSupplier ending,
      Runnable giveUp,
      PageDownloads keeping) {
    this.ending = ending;
    this.giveUp = giveUp;
    this.waitsEnd = waitsEnd;
    this.lane = lane;
    this.page = page;
    this.control = control;
    this.outside = outside;
    this.opened = opened;
    this.registryKey = registryKey;
    this.navigationTimeoutMs = navigationTimeoutMs;
    page.onRequest(
        request -> {
          if (isMainNavigation(request)) {
            destination = request.url();
            underWay.put(request, NO_ANSWER);
          } else if (DATA.contains(request.resourceType())) {
            dataUnderWay.put(request, dataStarted.incrementAndGet());
          }
        });
    page.onResponse(
        response -> {
          underWay.computeIfPresent(response.request(), (r, since) -> System.nanoTime());
          String disposition = response.headers().getOrDefault("content-disposition", "");
          if (response.request().isNavigationRequest()
              && disposition.toLowerCase(Locale.ROOT).startsWith("attachment")
              && !keeping.accepting(page)) {
            // A navigation that answers with a file to save: the browser turns it into a download.
            downloads.incrementAndGet();
          }
        });
    page.onRequestFinished(
        request -> {
          underWay.remove(request);
          dataUnderWay.remove(request);
        });
    page.onRequestFailed(
        request -> {
          underWay.remove(request);
          dataUnderWay.remove(request);
        });
    page.onFrameNavigated(
        frame -> {
          if (frame == page.mainFrame()) {
            underWay.clear(); // the document came
          }
        });
    page.onFileChooser(
        chooser -> {
          if (!choosing) {
            fileChoosers.incrementAndGet();
          }
        });
    page.onDownload(
        download -> {
          startedDownloads.arrived();
          if (keeping.keep(download)) {
            return;
          }
          (keeping.full() ? pastLimit : downloads).incrementAndGet();
          download.cancel();
        });
    control.send("Page.enable");
    control.on(
        "Page.frameRequestedNavigation",
        navigation -> {
          String scheme = scheme(string(navigation, "url"));
          if (scheme != null && !BROWSER_OWNED.contains(scheme)) {
            externalNavigations.add("the page tried to hand " + scheme + ": to another program");
          }
        });
  }

  /** Runs {@code work}, an upload, with the file chooser it opens let through to it. */
  <T> T choosing(Callable<T> work) throws Exception {
    choosing = true;
    try {
      return work.call();
    } finally {
      choosing = false;
    }
  }

  /** The page's Chromium control session, which the page cannot see. */
  CDPSession control() {
    return control;
  }

  /**
   * Refuses before dispatch an element whose activation would leave the page or hand something to
   * the system.
   */
  static void refuseBeforeDispatch(ProviderElement element, boolean downloadsAllowed) {
    String f = element.fingerprint();
    String reason =
        "file".equals(element.inputType())
            ? "it is a file input; files go into it only with browser_upload, from the attachment store"
            : f.contains("\"downloads\":true") && !downloadsAllowed
                ? "it downloads a file, and downloads are not allowed"
                : f.contains("\"externalProtocol\":true")
                    ? "it hands a link or form to another program"
                    : null;
    if (reason != null) {
      throw new BrowserException(
          ErrorCode.BROWSER_POLICY_DENIED,
          "element \"" + element.name() + "\" was not activated: " + reason);
    }
  }

  /**
   * Runs an action (on the lane's thread) and fails it with what the guards blocked while it ran.
   */
  @Override
  public <T> T around(String what, Callable<T> action) throws Exception {
    noteBackground();
    startedDownloads.mark();
    T result;
    try {
      result = action.call();
    } catch (PlaywrightException e) {
      if (!closedItself()) {
        throw e;
      }
      result = null; // the page closed itself in answer (window.close()): nothing more to see
    }
    List<String> blocked = new ArrayList<>();
    try {
      blocked.addAll(afterAction());
    } catch (PlaywrightException e) {
      if (!closedItself()) {
        throw e;
      }
    }
    blocked.addAll(takeBlockedOutside());
    if (!blocked.isEmpty()) {
      throw BrowserException.of(
              ErrorCode.BROWSER_POLICY_DENIED,
              what + " was stopped: " + String.join("; ", new LinkedHashSet<>(blocked)))
          .withUrl(page.url());
    }
    return result;
  }

  /** Whether the page closed itself ({@code window.close()}), the environment going on. */
  private boolean closedItself() {
    return page.isClosed() && !ending.getAsBoolean();
  }

  /**
   * What the document blocked while the action ran, once a navigation it started has its headers
   * and the windows it opened have arrived. Nothing when the page closed itself meanwhile.
   */
  private List<String> afterAction() {
    if (page.isClosed()) {
      return List.of();
    }
    Recorded recorded = readRegistry();
    List<String> blocked = new ArrayList<>(recorded.blocked());
    int windows = recorded.opened();
    int downloadLinks = recorded.downloading();
    if (!page.isClosed() && (recorded.navigated() || navigating())) {
      // Only a navigation the page started waits here: an action that started none returns at once.
      awaitNavigationHeaders();
      Recorded again = readRegistry();
      blocked.addAll(again.blocked());
      windows += again.opened();
      downloadLinks += again.downloading();
    }
    if (windows > 0) {
      opened.accept(windows);
    }
    if (downloadLinks > 0) {
      awaitDownloads(downloadLinks);
    }
    return blocked;
  }

  /**
   * Waits, at most {@value #DOWNLOADS_WAIT_MS} ms, until the downloads the action's download links
   * started ({@code count}) have begun, or {@value #MORE_DOWNLOADS_WAIT_MS} ms passed since the
   * last one did: they are the action's, kept or refused with it, not cancelled as the page's own.
   */
  private void awaitDownloads(int count) {
    startedDownloads.await(
        page, count, DOWNLOADS_WAIT_MS, waitsEnd.getAsLong(), MORE_DOWNLOADS_WAIT_MS);
  }

  /**
   * The in-page record of the main document as an observation's script just took it ({@code
   * {blocked, navigated}}): what it holds was blocked while no action ran, a page event now.
   */
  void drained(Map<String, Object> read) {
    noteBackground(recorded(read));
  }

  /**
   * The page events since the last call of this method, with whatever was blocked outside the page
   * while no action ran; the observation that calls it has just taken the in-page record ({@link
   * #drained}).
   */
  List<String> takePageEvents() {
    noteBackground(new Recorded(List.of(), false, 0, 0));
    List<String> events = List.copyOf(pageEvents);
    pageEvents.clear();
    return events;
  }

  /**
   * What was blocked before an action began was not the action's doing: it becomes a page event.
   */
  private void noteBackground() {
    noteBackground(readRegistry());
  }

  private void noteBackground(Recorded recorded) {
    List<String> blocked = new ArrayList<>(recorded.blocked());
    blocked.addAll(takeBlockedOutside());
    blocked.forEach(reason -> event(reason + " while no action ran in its tab"));
  }

  /**
   * What the in-page guards recorded since the last read, and whether the document started a
   * navigation meanwhile. A document that went away counts as navigated: what it recorded went with
   * it.
   */
  private Recorded readRegistry() {
    if (navigating()) {
      // Chromium holds a script for a document whose frame is on its way to another document
      // until that navigation commits: the record goes with the document.
      return new Recorded(List.of(), true, 0, 0);
    }
    try {
      @SuppressWarnings("unchecked")
      Map<String, Object> r =
          lane.briefly(
              REGISTRY_READ_MS,
              () -> (Map<String, Object>) page.evaluate(READ_REGISTRY, registryKey));
      return recorded(r);
    } catch (PlaywrightException e) {
      // Gone, or held: a navigation the action started is under way, and its request is not
      // known yet.
      return new Recorded(List.of(), true, 0, 0);
    }
  }

  /**
   * How long reading the in-page record may take: a trivial script that takes longer is held by a
   * navigation under way.
   */
  static final long REGISTRY_READ_MS = 3_000;

  /**
   * Whether the page's main frame is on its way to another document: its request is out, and the
   * document has not committed. Chromium runs no script in the page meanwhile (seen for another
   * site's document and for one of the same origin). The events the driver already sent are
   * delivered first, so the answer is as fresh as the pipe. On the lane's thread, inside a call.
   */
  boolean navigating() {
    lane.deliverEvents();
    long now = System.nanoTime();
    underWay
        .values()
        .removeIf(answered -> answered != NO_ANSWER && now - answered > ANSWERED_GRACE_NS);
    return !underWay.isEmpty();
  }

  /** Whether a navigation under way has had no response yet. */
  private boolean unanswered() {
    return underWay.containsValue(NO_ANSWER);
  }

  /**
   * Waits, at most until {@code until} ({@link System#nanoTime()}), for a navigation under way to
   * commit its document or end without one; whether it did.
   */
  boolean awaitNavigation(long until) {
    while (navigating()) {
      if (System.nanoTime() > until) {
        return false;
      }
      page.waitForTimeout(25);
    }
    return true;
  }

  /**
   * Where the main frame is on its way to, when it is {@link #navigating()}: without the query and
   * fragment, which may carry a token meant for that site alone.
   */
  String destination() {
    return withoutQuery(destination);
  }

  static String withoutQuery(String url) {
    return url.split("[?#]", 2)[0];
  }

  @SuppressWarnings("unchecked")
  private static Recorded recorded(Map<String, Object> read) {
    return new Recorded(
        (List<String>) read.get("blocked"),
        Boolean.TRUE.equals(read.get("navigated")),
        read.get("opened") instanceof Number n ? n.intValue() : 0,
        read.get("downloading") instanceof Number d ? d.intValue() : 0);
  }

  /**
   * What the document's guards recorded: what they blocked, whether it navigated, and how many new
   * windows it opened in answer to the agent's input, and how many download links were clicked.
   */
  private record Recorded(List<String> blocked, boolean navigated, int opened, int downloading) {}

  /** read-registry.js: takes and empties what the guards recorded. */
  private static final String READ_REGISTRY = PageScripts.script("read-registry");

  /** What the browser blocked outside the page's scripts: downloads, pages, external protocols. */
  private List<String> takeBlockedOutside() {
    List<String> blocked = new ArrayList<>(externalNavigations);
    externalNavigations.clear();
    if (fileChoosers.get() > attributedChoosers) {
      blocked.add("the page tried to open a file picker");
      attributedChoosers = fileChoosers.get();
    }
    if (pastLimit.get() > attributedPastLimit) {
      blocked.add(
          "the page started more than "
              + PageDownloads.MAX_PER_ACTION
              + " downloads in one action; none was kept");
      attributedPastLimit = pastLimit.get();
    }
    if (downloads.get() > attributedDownloads) {
      blocked.add("the page started a download, which was cancelled");
      attributedDownloads = downloads.get();
    }
    blocked.addAll(outside.get());
    return blocked;
  }

  /** One line for the next observation's page events (the list is bounded). */
  void report(String line) {
    event(line);
  }

  private void event(String line) {
    if (pageEvents.size() < MAX_PAGE_EVENTS) {
      pageEvents.add(line);
    } else if (pageEvents.size() == MAX_PAGE_EVENTS) {
      pageEvents.add("(further page events not listed)");
    }
  }

  /**
   * Lets a navigation the action started reach its response headers (or fail), within the
   * navigation timeout and the time the action has left, so a download or a refusal it leads to is
   * seen as this action's. Events arrive only while a call runs, so this waits in short Playwright
   * calls. A navigation still without headers by then gives the page up: its tab gets a fresh page
   * in its place ({@link #giveUp}).
   */
  private void awaitNavigationHeaders() {
    long own = System.nanoTime() + navigationTimeoutMs * 1_000_000L;
    long deadline = Math.min(own, waitsEnd.getAsLong());
    page.waitForTimeout(25);
    if (!awaitNavigation(deadline)) {
      boolean headers = unanswered();
      giveUp.run();
      throw BrowserException.of(
          ErrorCode.BROWSER_NAVIGATION_FAILED,
          deadline == own
              ? "the page "
                  + (headers ? "sent no response headers" : "did not arrive")
                  + " within "
                  + navigationTimeoutMs
                  + " ms; the page was closed and its tab given a fresh one"
              : "the page started a navigation to "
                  + NavigationOutcomes.host(destination)
                  + ", which "
                  + (headers ? "had sent no response headers" : "had not arrived")
                  + " when the action's time ran out; the page was closed and its tab given a"
                  + " fresh one");
    }
  }

  private boolean isMainNavigation(Request request) {
    return request.isNavigationRequest() && request.frame() == page.mainFrame();
  }

  private static String string(JsonObject o, String field) {
    return o.has(field) && o.get(field).isJsonPrimitive() ? o.get(field).getAsString() : "";
  }

  private static String scheme(String url) {
    try {
      String s = URI.create(url.strip()).getScheme();
      return s == null ? null : s.toLowerCase(Locale.ROOT);
    } catch (IllegalArgumentException e) {
      int colon = url.indexOf(':');
      return colon > 0 ? url.substring(0, colon).strip().toLowerCase(Locale.ROOT) : null;
    }
  }
}
