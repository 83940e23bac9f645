package dev.periscope.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.sqlite.SQLiteConfig;

/**
 * What the browser plugin keeps in a profile's {@code browser_runtime} storage domain, as the host
 * reads it for {@code harness sessions|transitions|checkpoints}: the agent-session map, the audit
 * trail and the checkpoints. Listing opens the database read-only; {@code --clear} removes
 * checkpoint metadata first, then the payloads.
 */
final class RuntimeRecords {
  private final HarnessHome.Profile profile;
  private final Path database;

  RuntimeRecords(HarnessHome.Profile profile) {
    this.profile = profile;
    this.database = profile.data().resolve("browser_runtime.sqlite");
  }

  /**
   * Agent sessions (of one project, or all), their browser sessions, generation and last checkpoint
   * time.
   */
  void sessions(Optional<Path> project, PrintStream out) {
    query(
        true,
        c -> {
          try (PreparedStatement q =
              c.prepareStatement(
                  """
          SELECT a.project, a.agent_session, a.browser_session,
            MAX(COALESCE((SELECT MAX(generation) FROM transitions t WHERE t.browser_session = a.browser_session), 0),
                COALESCE(k.generation, 0)) AS generation,
            k.created_at AS checkpointed_at
          FROM agent_sessions a LEFT JOIN checkpoints k ON k.browser_session = a.browser_session
          WHERE ? IS NULL OR a.project = ? ORDER BY a.project, a.agent_session""")) {
            String p = project.map(RuntimeRecords::canonical).orElse(null);
            q.setString(1, p);
            q.setString(2, p);
            try (ResultSet r = q.executeQuery()) {
              out.printf(
                  "%-24s %-44s %-10s %-28s %s%n",
                  "AGENT SESSION", "BROWSER SESSION", "GENERATION", "LAST CHECKPOINT", "PROJECT");
              while (r.next()) {
                out.printf(
                    "%-24s %-44s %-10s %-28s %s%n",
                    r.getString("agent_session"),
                    r.getString("browser_session"),
                    r.getInt("generation") == 0 ? "-" : r.getInt("generation"),
                    Optional.ofNullable(r.getString("checkpointed_at")).orElse("none"),
                    r.getString("project"));
              }
            }
          }
          return null;
        });
  }

  /**
   * The audit trail of the browser sessions an agent session id (or a browser session id) names.
   */
  void transitions(String session, Optional<Path> project, PrintStream out) {
    query(
        true,
        c -> {
          List<String> browserSessions = new ArrayList<>();
          try (PreparedStatement q =
              c.prepareStatement(
                  "SELECT browser_session FROM agent_sessions"
                      + " WHERE (agent_session = ? AND (? IS NULL OR project = ?)) OR browser_session = ?")) {
            String p = project.map(RuntimeRecords::canonical).orElse(null);
            q.setString(1, session);
            q.setString(2, p);
            q.setString(3, p);
            q.setString(4, session);
            try (ResultSet r = q.executeQuery()) {
              while (r.next()) {
                browserSessions.add(r.getString(1));
              }
            }
          }
          if (browserSessions.isEmpty()) {
            throw new HarnessException(
                "no agent or browser session \"" + session + "\" in profile " + profile.name());
          }
          boolean causes = hasColumn(c, "transitions", "cause");
          for (String browserSession : browserSessions) {
            out.println("Browser session " + browserSession);
            try (PreparedStatement q =
                c.prepareStatement(
                    "SELECT * FROM transitions WHERE browser_session = ? ORDER BY started_at")) {
              q.setString(1, browserSession);
              try (ResultSet r = q.executeQuery()) {
                while (r.next()) {
                  String cause = causes ? r.getString("cause") : null;
                  out.printf(
                      "  %s gen %d %-10s %-9s %5d ms  %s -> %s%s%s%n",
                      r.getString("started_at"),
                      r.getInt("generation"),
                      r.getString("action_kind"),
                      r.getString("outcome"),
                      r.getLong("duration_ms"),
                      Optional.ofNullable(r.getString("before_url")).orElse("-"),
                      Optional.ofNullable(r.getString("after_url")).orElse("-"),
                      r.getString("error_code") == null ? "" : "  " + r.getString("error_code"),
                      cause == null ? "" : "  cause=" + cause);
                }
              }
            }
          }
          return null;
        });
  }

  /** Lists checkpoints, or with {@code clear} deletes them: metadata first, then each payload. */
  void checkpoints(boolean clear, PrintStream out) {
    List<String[]> rows =
        query(
            !clear,
            c -> {
              List<String[]> all = new ArrayList<>();
              try (PreparedStatement q =
                      c.prepareStatement("SELECT * FROM checkpoints ORDER BY created_at");
                  ResultSet r = q.executeQuery()) {
                while (r.next()) {
                  all.add(
                      new String[] {
                        r.getString("browser_session"),
                        r.getString("provider"),
                        r.getString("provider_version"),
                        String.valueOf(r.getInt("generation")),
                        r.getString("created_at"),
                        r.getString("ref")
                      });
                }
              }
              if (clear) {
                try (PreparedStatement d = c.prepareStatement("DELETE FROM checkpoints")) {
                  d.executeUpdate();
                }
              }
              return all;
            });
    Path payloads = profile.data().resolve("plugins").resolve("browser").resolve("checkpoints");
    if (clear) {
      int deleted = 0;
      for (String[] row : rows) {
        Path payload = payloads.resolve(row[5]);
        try {
          if (row[5].matches("^[0-9a-f]{32}\\.json$") && Files.deleteIfExists(payload)) {
            deleted++;
          }
        } catch (IOException e) {
          out.println("could not delete " + payload + ": " + e.getMessage());
        }
      }
      out.println(
          "Cleared "
              + rows.size()
              + " checkpoint(s) of profile "
              + profile.name()
              + " ("
              + deleted
              + " payload file(s) deleted). Their browser sessions start fresh.");
      return;
    }
    out.printf(
        "%-44s %-10s %-36s %-10s %-28s %s%n",
        "BROWSER SESSION", "PROVIDER", "BUILD", "GENERATION", "WRITTEN", "PAYLOAD BYTES");
    for (String[] row : rows) {
      Path payload = payloads.resolve(row[5]);
      String size;
      try {
        size =
            Files.isRegularFile(payload, LinkOption.NOFOLLOW_LINKS)
                ? String.valueOf(Files.size(payload))
                : "missing";
      } catch (IOException e) {
        size = "unreadable";
      }
      out.printf(
          "%-44s %-10s %-36s %-10s %-28s %s%n", row[0], row[1], row[2], row[3], row[4], size);
    }
  }

  /**
   * One browser session whose newest environment a fault ended, and nothing has opened since: when,
   * the cause and the failure code, with the agent sessions it belongs to.
   */
  record Fault(
      String browserSession,
      List<String> agentSessions,
      String at,
      String cause,
      String code,
      String url) {}

  /**
   * The browser sessions whose last environment ended by a fault: a {@code fault} record that
   * nothing of the session followed (a {@code recover}, or any action of a later environment, in
   * this process or another); newest first; none when the profile has no browser sessions yet.
   * Times are compared as times, whatever their precision.
   */
  List<Fault> faults() {
    if (!Files.isRegularFile(database)) {
      return List.of();
    }
    return query(
        true,
        c -> {
          List<Fault> out = new ArrayList<>();
          if (!hasColumn(c, "transitions", "cause")) {
            return out;
          }
          try (PreparedStatement q =
                  c.prepareStatement(
                      """
          SELECT t.browser_session, t.started_at, t.cause, t.error_code, t.before_url,
            (SELECT group_concat(a.agent_session, ', ') FROM agent_sessions a
              WHERE a.browser_session = t.browser_session) AS agents
          FROM transitions t
          WHERE t.action_kind = 'fault' AND NOT EXISTS (SELECT 1 FROM transitions n
            WHERE n.browser_session = t.browser_session AND n.id <> t.id
              AND julianday(n.started_at) >= julianday(t.started_at))
          ORDER BY julianday(t.started_at) DESC""");
              ResultSet r = q.executeQuery()) {
            while (r.next()) {
              String agents = r.getString("agents");
              out.add(
                  new Fault(
                      r.getString("browser_session"),
                      agents == null ? List.of() : List.of(agents.split(", ")),
                      r.getString("started_at"),
                      r.getString("cause"),
                      r.getString("error_code"),
                      r.getString("before_url")));
            }
          }
          return out;
        });
  }

  /**
   * Whether the checkpoint store can be trusted: its database, its payload directory, each indexed
   * payload.
   */
  record StoreCheck(boolean ok, String detail, String remedy) {}

  StoreCheck checkStore() {
    if (!Files.isRegularFile(database)) {
      return new StoreCheck(true, "no browser sessions yet", null);
    }
    Path payloads = profile.data().resolve("plugins").resolve("browser").resolve("checkpoints");
    try {
      return query(
          true,
          c -> {
            try (PreparedStatement q = c.prepareStatement("PRAGMA integrity_check");
                ResultSet r = q.executeQuery()) {
              String result = r.next() ? r.getString(1) : "no answer";
              if (!"ok".equals(result)) {
                return new StoreCheck(
                    false,
                    database + " is damaged: " + result,
                    "move it aside (the browser sessions then start fresh): mv "
                        + database
                        + " "
                        + database
                        + ".damaged");
              }
            }
            int version;
            try (PreparedStatement q = c.prepareStatement("PRAGMA user_version");
                ResultSet r = q.executeQuery()) {
              version = r.next() ? r.getInt(1) : 0;
            }
            List<String> refs = new ArrayList<>();
            try (PreparedStatement q = c.prepareStatement("SELECT ref FROM checkpoints");
                ResultSet r = q.executeQuery()) {
              while (r.next()) {
                refs.add(r.getString(1));
              }
            }
            if (!refs.isEmpty()) {
              if (Files.isSymbolicLink(payloads)
                  || !Files.isDirectory(payloads, LinkOption.NOFOLLOW_LINKS)) {
                return new StoreCheck(
                    false,
                    payloads
                        + " is missing or not a directory, so "
                        + refs.size()
                        + " checkpoint(s) cannot be restored",
                    "clear them: harness checkpoints --clear --profile " + profile.name());
              }
              try {
                if (!java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(payloads))
                    .endsWith("------")) {
                  return new StoreCheck(
                      false,
                      payloads + " can be read by others than its owner",
                      "chmod 700 " + payloads);
                }
              } catch (IOException | UnsupportedOperationException e) {
                // no POSIX permissions here to check
              }
            }
            long missing =
                refs.stream()
                    .filter(
                        ref ->
                            !Files.isRegularFile(payloads.resolve(ref), LinkOption.NOFOLLOW_LINKS))
                    .count();
            String detail =
                "schema "
                    + version
                    + ", "
                    + refs.size()
                    + " checkpoint(s)"
                    + (missing == 0
                        ? ""
                        : ", " + missing + " with the payload gone (those sessions start fresh)");
            return new StoreCheck(true, detail, null);
          });
    } catch (HarnessException e) {
      return new StoreCheck(
          false, e.getMessage(), "check the file's owner and permissions, or move it aside");
    }
  }

  /**
   * Forgets every agent session of a project and its transitions (its checkpoints are reset first).
   */
  void forgetProject(Path project) {
    if (!Files.isRegularFile(database)) {
      return;
    }
    String p = canonical(project);
    query(
        false,
        c -> {
          for (String sql :
              List.of(
                  "DELETE FROM transitions WHERE browser_session IN (SELECT browser_session FROM agent_sessions WHERE project = ?)",
                  "DELETE FROM agent_sessions WHERE project = ?")) {
            try (PreparedStatement d = c.prepareStatement(sql)) {
              d.setString(1, p);
              d.executeUpdate();
            }
          }
          return null;
        });
  }

  private static boolean hasColumn(Connection c, String table, String column) throws SQLException {
    try (PreparedStatement q =
        c.prepareStatement("SELECT 1 FROM pragma_table_info(?) WHERE name = ?")) {
      q.setString(1, table);
      q.setString(2, column);
      try (ResultSet r = q.executeQuery()) {
        return r.next();
      }
    }
  }

  private interface Query<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T query(boolean readOnly, Query<T> query) {
    if (!Files.isRegularFile(database)) {
      throw new HarnessException(
          "profile " + profile.name() + " has no browser sessions yet (no " + database + ")");
    }
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(readOnly);
    config.setBusyTimeout(5000);
    try (Connection c =
        DriverManager.getConnection("jdbc:sqlite:" + database, config.toProperties())) {
      c.setAutoCommit(false);
      T result = query.run(c);
      c.commit();
      return result;
    } catch (SQLException e) {
      throw new HarnessException("cannot read " + database + ": " + e.getMessage());
    }
  }

  private static String canonical(Path project) {
    try {
      return project.toRealPath().toString();
    } catch (IOException e) {
      throw new HarnessException("project directory " + project + " does not exist");
    }
  }
}
