package dev.periscope.browser.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.ProjectContext;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.runtime.RuntimeSettings;
import dev.periscope.browser.store.AgentSessionStore;
import dev.periscope.browser.store.RuntimeDatabase;
import dev.periscope.browser.store.RuntimeRecords;
import dev.periscope.browser.store.SqliteCheckpointIndex;
import dev.periscope.browser.store.SqliteTransitionLog;
import dev.periscope.storage.SqliteStorageDomains;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator tools answer from the plugin's own records on a real SQLite file, and hostile names
 * in those records or in the arguments reach no file and no other row.
 */
class OperatorToolsTest {
  @TempDir Path dir;
  private SqliteStorageDomains storage;
  private RuntimeDatabase database;
  private DefaultBrowserRuntime runtime;
  private Path project;
  private Path payloads;
  private Map<String, Tool> tools;

  @BeforeEach
  void start() throws Exception {
    storage = new SqliteStorageDomains(dir.resolve("data"));
    database = new RuntimeDatabase(storage);
    runtime =
        DefaultBrowserRuntime.builder(RuntimeSettings.defaults())
            .checkpoints(new SqliteCheckpointIndex(database))
            .transitionLog(new SqliteTransitionLog(database))
            .build();
    project = Files.createDirectories(dir.resolve("project")).toRealPath();
    payloads = Files.createDirectories(dir.resolve("plugin/checkpoints"));
    ProjectContext context = new ProjectContext("p", project, dir.resolve("plugin"));
    new AgentSessionStore(database, context).sessionFor("agent-1");
    new AgentSessionStore(database, new ProjectContext("p", dir, dir.resolve("plugin")))
        .sessionFor("agent-elsewhere");
    tools = new java.util.LinkedHashMap<>();
    for (Tool t :
        new OperatorTools(new RuntimeRecords(database), runtime, context, Optional.of(payloads))
            .tools()) {
      tools.put(t.descriptor().name(), t);
    }
  }

  @AfterEach
  void stop() {
    runtime.close();
    database.close();
    storage.close();
  }

  private ToolResult run(String tool, Map<String, Object> arguments) {
    return tools
        .get(tool)
        .call(new ToolCall(arguments, "operator", dev.periscope.api.Cancellation.none()));
  }

  private void sql(String sql) throws Exception {
    try (Connection c =
            DriverManager.getConnection(
                "jdbc:sqlite:" + dir.resolve("data").resolve(RuntimeDatabase.DOMAIN + ".sqlite"));
        Statement s = c.createStatement()) {
      s.executeUpdate(sql);
    }
  }

  @Test
  void listsTheAgentSessionsOfOneProjectOrAll() {
    ToolResult all = run("browser_sessions", Map.of());
    assertFalse(all.isError(), all.text());
    assertEquals(2, ((List<?>) all.structured().get("sessions")).size(), all.text());
    ToolResult one = run("browser_sessions", Map.of("project", project.toString()));
    List<?> rows = (List<?>) one.structured().get("sessions");
    assertEquals(1, rows.size(), one.text());
    assertEquals("agent-1", ((Map<?, ?>) rows.get(0)).get("agent_session"));
    assertTrue(one.text().startsWith("AGENT SESSION"), one.text());
  }

  @Test
  void aSessionNameMadeOfSqlFindsNothing() {
    for (String hostile : List.of("' OR 1=1 --", "agent-1' OR '1'='1", "%", "*")) {
      ToolResult r = run("browser_transitions", Map.of("session", hostile));
      assertTrue(r.isError(), hostile + ": " + r.text());
      assertTrue(r.text().startsWith("no agent or browser session"), r.text());
    }
  }

  @Test
  void aCheckpointRefThatLeavesThePayloadDirectoryIsNeitherReadNorDeleted() throws Exception {
    Path outside = Files.writeString(dir.resolve("plugin/secret.txt"), "not a checkpoint");
    sql(
        "INSERT INTO checkpoints (browser_session, provider, provider_version, ref, generation, created_at) VALUES ('session-hostile', 'playwright', '1', '../secret.txt', 1,"
            + " '2026-12-01T00:00:00Z')");
    ToolResult listed = run("browser_checkpoints", Map.of());
    Map<?, ?> row = (Map<?, ?>) ((List<?>) listed.structured().get("checkpoints")).get(0);
    assertEquals("unknown", row.get("payload_bytes"), listed.text());

    ToolResult check = run("browser_store_check", Map.of());
    assertFalse(check.text().contains("payload gone"), check.text());

    ToolResult cleared = run("browser_clear_checkpoints", Map.of());
    assertTrue(
        cleared.text().startsWith("Cleared 1 checkpoint(s) of profile p (0 payload"),
        cleared.text());
    assertTrue(Files.exists(outside), "a file outside the payload directory was deleted");
    assertTrue(
        ((List<?>) run("browser_checkpoints", Map.of()).structured().get("checkpoints")).isEmpty());
  }

  private void transition(String session, String kind, String at, String cause, String url)
      throws Exception {
    sql(
        "INSERT INTO transitions (id, browser_session, environment, provider, generation,"
            + " action_kind, outcome, after_url, started_at, finished_at, duration_ms, action_ms,"
            + " observation_ms, text_chars, element_count, text_truncated, elements_truncated,"
            + " cause) VALUES ('t-"
            + java.util.UUID.randomUUID()
            + "', '"
            + session
            + "', 'env', 'playwright', 1, '"
            + kind
            + "', 'SUCCEEDED', "
            + (url == null ? "NULL" : "'" + url + "'")
            + ", '"
            + at
            + "', '"
            + at
            + "', 0, 0, 0, 0, 0, 0, 0, "
            + (cause == null ? "NULL" : "'" + cause + "'")
            + ")");
  }

  @Test
  void theStoreCheckListsEachSessionsLastJournalEventsNewestFirstAndNoActions() throws Exception {
    for (int i = 0; i < 5; i++) {
      transition(
          "session-a",
          "challenge",
          "2026-12-01T10:0" + i + ":00Z",
          "recaptcha captcha",
          "http://a.test/form");
      transition("session-a", "click", "2026-12-01T10:0" + i + ":30Z", null, "http://a.test/form");
    }
    transition("session-b", "fault", "2026-12-01T11:00:00Z", "page-crashed", null);
    transition("session-b", "recover", "2026-12-01T11:00:01.5Z", "page-crashed", null);
    ToolResult check = run("browser_store_check", Map.of());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> journal =
        (List<Map<String, Object>>) check.structured().get("journal");
    assertEquals(
        List.of("recover", "fault", "challenge", "challenge", "challenge"),
        journal.stream().map(e -> e.get("kind")).toList(),
        check.text());
    assertEquals("2026-12-01T10:04:00Z", journal.get(2).get("at"));
    assertEquals("recaptcha captcha", journal.get(2).get("cause"));
    assertTrue(
        check
            .text()
            .contains(
                "journal: browser session session-a: challenge at 2026-12-01T10:04:00Z (recaptcha"
                    + " captcha) on http://a.test/form"),
        check.text());
  }

  @Test
  void theStoreCheckListsNoFaultForASessionMovedOffADrainingNodeWhileIdle() throws Exception {
    // Moved: checkpointed and closed because its Grid node drains; the next call opens elsewhere.
    transition("session-moved", "click", "2026-12-01T12:00:00Z", null, "http://a.test/");
    transition("session-moved", "fault", "2026-12-01T12:05:00Z", "retiring", "http://a.test/");
    // Faulted: its renderer crashed, and nothing came after.
    transition("session-crashed", "fault", "2026-12-01T12:06:00Z", "page-crashed", null);
    ToolResult check = run("browser_store_check", Map.of());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> faults = (List<Map<String, Object>>) check.structured().get("faults");
    assertEquals(
        List.of("session-crashed"),
        faults.stream().map(f -> f.get("browser_session")).toList(),
        check.text());
    assertFalse(check.text().contains("fault: browser session session-moved"), check.text());
    // The journal still shows the move.
    assertTrue(
        check
            .text()
            .contains(
                "journal: browser session session-moved: fault at 2026-12-01T12:05:00Z (retiring)"),
        check.text());
  }

  @Test
  void forgettingTheProjectLeavesOtherProjectsSessions() {
    BrowserSessionId elsewhere =
        new AgentSessionStore(database, new ProjectContext("p", dir, dir.resolve("plugin")))
            .sessionFor("agent-elsewhere");
    ToolResult forgot = run("browser_forget_project", Map.of());
    assertFalse(forgot.isError(), forgot.text());
    assertEquals(1, ((List<?>) forgot.structured().get("forgotten")).size(), forgot.text());
    List<?> left = (List<?>) run("browser_sessions", Map.of()).structured().get("sessions");
    assertEquals(1, left.size());
    assertEquals(elsewhere.value(), ((Map<?, ?>) left.get(0)).get("browser_session"));
  }
}
