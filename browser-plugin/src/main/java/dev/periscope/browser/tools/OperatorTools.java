package dev.periscope.browser.tools;

import dev.periscope.api.ProjectContext;
import dev.periscope.api.browser.BrowserRuntime;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolHints;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.playwright.GridCheck;
import dev.periscope.browser.store.RuntimeRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The {@code browser-operator} skill: what the person who runs the host needs to see and repair of
 * the plugin's state, answered by the plugin from its own records, so that no host reads its tables
 * or deletes its files. A host never offers these tools to a model (the skill's audience is {@code
 * operator}); each answers with a table as text and the same rows as structured content.
 */
public final class OperatorTools {
  public static final String SKILL = "browser-operator";

  private final RuntimeRecords records;
  private final BrowserRuntime runtime;
  private final ProjectContext project;
  private final Optional<Path> payloads;
  private final Optional<WatchLinks> watches;
  private final java.util.function.Supplier<Optional<GridCheck>> grid;
  private final java.util.function.Supplier<Optional<dev.periscope.browser.playwright.CdpCheck>>
      cdp;

  /**
   * {@code payloads} is where the built-in provider keeps checkpoint payloads, whose presence and
   * permissions the store check reports.
   */
  public OperatorTools(
      RuntimeRecords records,
      BrowserRuntime runtime,
      ProjectContext project,
      Optional<Path> payloads) {
    this(records, runtime, project, payloads, Optional::empty, Optional::empty);
  }

  /**
   * With the check of the project's Selenium Grid ({@code browser_grid_check}) and of the running
   * Chromium the cdp provider attaches to ({@code browser_cdp_check}), where it names them.
   */
  public OperatorTools(
      RuntimeRecords records,
      BrowserRuntime runtime,
      ProjectContext project,
      Optional<Path> payloads,
      java.util.function.Supplier<Optional<GridCheck>> grid,
      java.util.function.Supplier<Optional<dev.periscope.browser.playwright.CdpCheck>> cdp) {
    this(records, runtime, project, payloads, grid, cdp, Optional.empty());
  }

  /** With the watch requests ({@code browser_watch}) where the store has them. */
  public OperatorTools(
      RuntimeRecords records,
      BrowserRuntime runtime,
      ProjectContext project,
      Optional<Path> payloads,
      java.util.function.Supplier<Optional<GridCheck>> grid,
      java.util.function.Supplier<Optional<dev.periscope.browser.playwright.CdpCheck>> cdp,
      Optional<dev.periscope.browser.store.WatchRequests> watches) {
    this.watches =
        watches.map(w -> new WatchLinks(records, w, project == null ? "?" : project.profile()));
    this.grid = grid;
    this.cdp = cdp;
    this.records = records;
    this.runtime = runtime;
    this.project = project;
    this.payloads = payloads;
  }

  public List<Tool> tools() {
    return List.of(
        tool(
            "browser_sessions",
            "List the agent sessions (of one project, or all), their browser sessions, generation and last"
                + " checkpoint.",
            List.of(Param.string("project", "Only this project's agent sessions (its directory).")),
            true,
            this::sessions),
        tool(
            "browser_transitions",
            "Print the audit trail of an agent session (or a browser session) as the index keeps it, every"
                + " transition: time, generation, action, outcome, duration, URLs, failure code and fault cause.",
            List.of(
                Param.string("session", "An agent session id or a browser session id.")
                    .asRequired(),
                Param.string("project", "The project of the agent session (its directory).")),
            true,
            this::transitions),
        tool(
            "browser_checkpoints",
            "List the saved browser states: browser session, provider, build, generation, time and"
                + " payload size.",
            List.of(),
            true,
            call -> checkpoints()),
        tool(
            "browser_clear_checkpoints",
            "Delete every checkpoint (metadata first, then the payload): the browser sessions start fresh.",
            List.of(),
            false,
            call -> clearCheckpoints()),
        tool(
            "browser_store_check",
            "Check the checkpoint store (database, payload directory, each payload), list the browser"
                + " sessions whose last browser a fault ended, and each session's last journal events"
                + " (faults, recoveries, challenges).",
            List.of(),
            true,
            call -> storeCheck()),
        tool(
            "browser_grid_check",
            "Check this project's Selenium Grid, if it names one: reachable, ready, nodes up, free Chrome"
                + " slots, and where the policy proxies listen for its nodes.",
            List.of(),
            true,
            call -> gridCheck()),
        tool(
            "browser_cdp_check",
            "Check the running Chromium this project's cdp provider attaches to, if it names one:"
                + " reachable, its version, and how the network policy is enforced there.",
            List.of(),
            true,
            call -> cdpCheck()),
        tool(
            "browser_forget_project",
            "Forget every agent session of this host's project: their checkpoints and audit trails.",
            List.of(),
            false,
            call -> forgetProject()),
        tool(
            "browser_watch",
            "Print a one-time link to a read-only live view of a running session's current tab (no"
                + " input, no Done or Give up): it works for one viewer, expires unused, and ends with"
                + " the session or when stopped (stop: true).",
            List.of(
                Param.string("session", "An agent session id or a browser session id.")
                    .asRequired(),
                Param.string("project", "The project of the agent session (its directory)."),
                Param.integer(
                    "expires_in_seconds",
                    1,
                    WatchLinks.MAX_EXPIRES_S,
                    "How long the link works unused (default "
                        + WatchLinks.DEFAULT_EXPIRES_S
                        + ")."),
                Param.bool("stop", "Stop the session's open watches instead.")),
            false,
            this::watch));
  }

  private ToolResult watch(ToolCall call) {
    if (watches.isEmpty()) {
      return ToolResult.error(
          "this host keeps no watch requests: watching needs the plugin's store");
    }
    Arguments args = new Arguments(call.arguments());
    return watches
        .get()
        .watch(
            args.string("session"),
            Optional.ofNullable(args.optionalString("project")).map(OperatorTools::canonical),
            args.optionalBool("stop", false),
            args.integer("expires_in_seconds", 1, WatchLinks.MAX_EXPIRES_S)
                .orElse(WatchLinks.DEFAULT_EXPIRES_S));
  }

  private ToolResult sessions(ToolCall call) {
    Optional<String> filter =
        Optional.ofNullable(new Arguments(call.arguments()).optionalString("project"))
            .map(OperatorTools::canonical);
    StringBuilder text = new StringBuilder();
    text.append(
        String.format(
            "%-24s %-44s %-10s %-28s %s%n",
            "AGENT SESSION", "BROWSER SESSION", "GENERATION", "LAST CHECKPOINT", "PROJECT"));
    List<Map<String, Object>> rows = new ArrayList<>();
    for (RuntimeRecords.SessionRow r : records.sessions(filter)) {
      text.append(
          String.format(
              "%-24s %-44s %-10s %-28s %s%n",
              r.agentSession(),
              r.browserSession(),
              r.generation() == 0 ? "-" : r.generation(),
              r.checkpointedAt().orElse("none"),
              r.project()));
      rows.add(
          ordered(
              "agent_session", r.agentSession(),
              "browser_session", r.browserSession().value(),
              "generation", r.generation(),
              "checkpointed_at", r.checkpointedAt().orElse(null),
              "project", r.project()));
    }
    return ToolResult.text(text.toString(), Map.of("sessions", rows));
  }

  private ToolResult transitions(ToolCall call) {
    Arguments args = new Arguments(call.arguments());
    String session = args.string("session");
    Optional<String> filter =
        Optional.ofNullable(args.optionalString("project")).map(OperatorTools::canonical);
    List<BrowserSessionId> sessions = records.browserSessionsOf(session, filter);
    if (sessions.isEmpty()) {
      return ToolResult.error(
          "no agent or browser session \"" + session + "\" in profile " + project.profile());
    }
    StringBuilder text = new StringBuilder();
    Map<String, Object> trails = new LinkedHashMap<>();
    for (BrowserSessionId id : sessions) {
      text.append("Browser session ").append(id).append('\n');
      List<Map<String, Object>> rows = new ArrayList<>();
      for (RuntimeRecords.TransitionRow t : records.transitions(id)) {
        text.append(
            String.format(
                "  %s gen %d %-10s %-9s %5d ms  %s -> %s%s%s%s%s%n",
                t.startedAt(),
                t.generation(),
                t.action(),
                t.outcome(),
                t.durationMs(),
                Optional.ofNullable(t.beforeUrl()).orElse("-"),
                Optional.ofNullable(t.afterUrl()).orElse("-"),
                t.errorCode() == null ? "" : "  " + t.errorCode(),
                t.cause() == null ? "" : "  cause=" + t.cause(),
                t.placement() == null ? "" : "  on " + t.placement(),
                t.environmentMs() == 0
                    ? ""
                    : "  (" + t.environmentMs() + " ms of it waiting for the browser)"));
        rows.add(
            ordered(
                "started_at", t.startedAt(),
                "generation", t.generation(),
                "action", t.action(),
                "outcome", t.outcome(),
                "duration_ms", t.durationMs(),
                "environment_ms", t.environmentMs(),
                "before_url", t.beforeUrl(),
                "after_url", t.afterUrl(),
                "error", t.errorCode(),
                "cause", t.cause(),
                "placement", t.placement()));
      }
      trails.put(id.value(), rows);
    }
    return ToolResult.text(text.toString(), Map.of("transitions", trails));
  }

  private ToolResult checkpoints() {
    StringBuilder text = new StringBuilder();
    text.append(
        String.format(
            "%-44s %-10s %-36s %-10s %-28s %s%n",
            "BROWSER SESSION", "PROVIDER", "BUILD", "GENERATION", "WRITTEN", "PAYLOAD BYTES"));
    List<Map<String, Object>> rows = new ArrayList<>();
    for (RuntimeRecords.CheckpointRow r : records.checkpoints()) {
      String size = payloadSize(r.ref());
      text.append(
          String.format(
              "%-44s %-10s %-36s %-10s %-28s %s%n",
              r.browserSession(),
              r.provider(),
              r.providerVersion(),
              r.generation(),
              r.createdAt(),
              size));
      rows.add(
          ordered(
              "browser_session", r.browserSession().value(),
              "provider", r.provider(),
              "provider_version", r.providerVersion(),
              "generation", r.generation(),
              "created_at", r.createdAt(),
              "payload_bytes", size));
    }
    return ToolResult.text(text.toString(), Map.of("checkpoints", rows));
  }

  private String payloadSize(String ref) {
    Optional<Path> payload = payload(ref);
    if (payload.isEmpty()) {
      return "unknown";
    }
    try {
      return Files.isRegularFile(payload.get(), LinkOption.NOFOLLOW_LINKS)
          ? String.valueOf(Files.size(payload.get()))
          : "missing";
    } catch (IOException e) {
      return "unreadable";
    }
  }

  /** The payload file of a checkpoint ref, when the ref names a file in the payload directory. */
  private Optional<Path> payload(String ref) {
    return payloads
        .filter(dir -> ref.matches("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"))
        .map(dir -> dir.resolve(ref));
  }

  private ToolResult clearCheckpoints() {
    List<RuntimeRecords.CheckpointRow> rows = records.checkpoints();
    int deleted = 0;
    for (RuntimeRecords.CheckpointRow r : rows) {
      boolean present = payload(r.ref()).map(Files::isRegularFile).orElse(false);
      runtime.discard(r.browserSession());
      if (present && !payload(r.ref()).map(Files::isRegularFile).orElse(false)) {
        deleted++;
      }
    }
    return ToolResult.text(
        "Cleared "
            + rows.size()
            + " checkpoint(s) of profile "
            + project.profile()
            + " ("
            + deleted
            + " payload file(s) deleted). Their browser sessions start fresh.",
        Map.of("cleared", rows.size(), "payloads_deleted", deleted));
  }

  private ToolResult gridCheck() {
    return checked(
        "grid",
        "this project names no Selenium Grid (plugins.browser.grid)",
        grid.get().map(c -> new Checked(c.ok(), c.detail(), c.remedy())));
  }

  private ToolResult cdpCheck() {
    return checked(
        "cdp",
        "this project names no running Chromium (plugins.browser.cdp)",
        cdp.get().map(c -> new Checked(c.ok(), c.detail(), c.remedy())));
  }

  /** What a check of something outside the host found: fine or not, what, and what to do. */
  private record Checked(boolean ok, String detail, String remedy) {}

  /** A check's result under {@code key}; {@code none} when the project names nothing to check. */
  private static ToolResult checked(String key, String none, Optional<Checked> check) {
    if (check.isEmpty()) {
      return ToolResult.text(none, Map.of(key, Map.of("configured", false)));
    }
    Checked c = check.get();
    return ToolResult.text(
        (c.ok() ? "ok: " : "FAIL: ")
            + c.detail()
            + (c.remedy() == null ? "" : "\n  -> " + c.remedy())
            + "\n",
        Map.of(
            key,
            ordered("configured", true, "ok", c.ok(), "detail", c.detail(), "remedy", c.remedy())));
  }

  /** The journal events the store check shows: the last few of each session, the newest in all. */
  private static final int JOURNAL_PER_SESSION = 3;

  private static final int JOURNAL_LIMIT = 20;

  private ToolResult storeCheck() {
    Map<String, Object> store = store();
    List<Map<String, Object>> faults = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    text.append(Boolean.TRUE.equals(store.get("ok")) ? "ok: " : "FAIL: ")
        .append(store.get("detail"))
        .append('\n');
    if (store.get("remedy") != null) {
      text.append("  -> ").append(store.get("remedy")).append('\n');
    }
    for (RuntimeRecords.Fault f : records.faults()) {
      text.append(
          String.format(
              "fault: browser session %s%s: its last browser ended by a fault at %s: %s (%s)%s%n",
              f.browserSession(),
              f.agentSessions().isEmpty()
                  ? ""
                  : " (agent session " + String.join(", ", f.agentSessions()) + ")",
              f.at(),
              f.cause(),
              f.code(),
              f.url() == null ? "" : " on " + f.url()));
      faults.add(
          ordered(
              "browser_session", f.browserSession().value(),
              "agent_sessions", f.agentSessions(),
              "at", f.at(),
              "cause", f.cause(),
              "code", f.code(),
              "url", f.url()));
    }
    List<Map<String, Object>> journal = new ArrayList<>();
    for (RuntimeRecords.JournalEvent e : records.journal(JOURNAL_PER_SESSION, JOURNAL_LIMIT)) {
      text.append(
          String.format(
              "journal: browser session %s: %s at %s%s%s%n",
              e.browserSession(),
              e.kind(),
              e.at(),
              e.cause() == null ? "" : " (" + e.cause() + ")",
              e.url() == null ? "" : " on " + e.url()));
      journal.add(
          ordered(
              "browser_session", e.browserSession().value(),
              "agent_sessions", e.agentSessions(),
              "at", e.at(),
              "kind", e.kind(),
              "cause", e.cause(),
              "code", e.code(),
              "url", e.url()));
    }
    return ToolResult.text(
        text.toString(), Map.of("store", store, "faults", faults, "journal", journal));
  }

  /**
   * Whether the checkpoint store can be trusted: its database, its payload directory, each indexed
   * payload.
   */
  private Map<String, Object> store() {
    String integrity = records.integrity();
    if (!"ok".equals(integrity)) {
      return verdict(
          false,
          "the browser_runtime database is damaged: " + integrity,
          "move the profile's browser_runtime database aside; the browser sessions then start fresh");
    }
    List<RuntimeRecords.CheckpointRow> rows = records.checkpoints();
    if (rows.isEmpty() && records.agentSessionCount() == 0) {
      return verdict(true, "no browser sessions yet", null);
    }
    if (!rows.isEmpty() && payloads.isPresent()) {
      Path dir = payloads.get();
      if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        return verdict(
            false,
            dir
                + " is missing or not a directory, so "
                + rows.size()
                + " checkpoint(s) cannot be restored",
            "clear them with the operator tool browser_clear_checkpoints (harness checkpoints --clear"
                + " --profile "
                + project.profile()
                + ")");
      }
      try {
        if (!PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)).endsWith("------")) {
          return verdict(false, dir + " can be read by others than its owner", "chmod 700 " + dir);
        }
      } catch (IOException | UnsupportedOperationException e) {
        // no POSIX permissions here to check
      }
    }
    long missing = rows.stream().filter(r -> "missing".equals(payloadSize(r.ref()))).count();
    return verdict(
        true,
        "schema "
            + records.schemaVersion()
            + ", "
            + rows.size()
            + " checkpoint(s)"
            + (missing == 0
                ? ""
                : ", " + missing + " with the payload gone (those sessions start fresh)"),
        null);
  }

  private ToolResult forgetProject() {
    String key = project.projectDir().toString();
    List<BrowserSessionId> forgotten = records.browserSessionsOfProject(key);
    // Checkpoints first (metadata, then the payload), so none outlives its session's record.
    forgotten.forEach(runtime::discard);
    records.forgetProject(key);
    return ToolResult.text(
        "Forgot "
            + forgotten.size()
            + " agent session(s) of project "
            + project.projectDir()
            + ", their checkpoints and audit trails.",
        Map.of("forgotten", forgotten.stream().map(BrowserSessionId::value).toList()));
  }

  private static Map<String, Object> verdict(boolean ok, String detail, String remedy) {
    return ordered("ok", ok, "detail", detail, "remedy", remedy);
  }

  private static String canonical(String project) {
    try {
      return Path.of(project).toRealPath().toString();
    } catch (IOException | java.nio.file.InvalidPathException e) {
      return project;
    }
  }

  /** A map of the keys and values in the order given; null values are left out. */
  private static Map<String, Object> ordered(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      if (keysAndValues[i + 1] != null) {
        m.put((String) keysAndValues[i], keysAndValues[i + 1]);
      }
    }
    return m;
  }

  private static Tool tool(
      String name,
      String description,
      List<Param> params,
      boolean readOnly,
      Function<ToolCall, ToolResult> body) {
    ToolDescriptor descriptor =
        new ToolDescriptor(
            name,
            description,
            Param.schema(params),
            new ToolHints(readOnly, !readOnly, true, false));
    return new Tool() {
      @Override
      public ToolDescriptor descriptor() {
        return descriptor;
      }

      @Override
      public ToolResult call(ToolCall call) {
        try {
          return body.apply(call);
        } catch (IllegalStateException | dev.periscope.api.browser.BrowserException e) {
          return ToolResult.error(e.getMessage());
        }
      }
    };
  }
}
