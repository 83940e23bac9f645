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
 * What the browser plugin keeps in a profile's {@code browser_runtime} storage domain, as the host reads it for
 * {@code harness sessions|transitions|checkpoints}: the agent-session map, the audit trail and the checkpoints.
 * Listing opens the database read-only; {@code --clear} removes checkpoint metadata first, then the payloads.
 */
final class RuntimeRecords {
  private final HarnessHome.Profile profile;
  private final Path database;

  RuntimeRecords(HarnessHome.Profile profile) {
    this.profile = profile;
    this.database = profile.data().resolve("browser_runtime.sqlite");
  }

  /** Agent sessions (of one project, or all), their browser sessions, generation and last checkpoint time. */
  void sessions(Optional<Path> project, PrintStream out) {
    query(true, c -> {
      try (PreparedStatement q = c.prepareStatement("""
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
          out.printf("%-24s %-44s %-10s %-28s %s%n", "AGENT SESSION", "BROWSER SESSION", "GENERATION",
              "LAST CHECKPOINT", "PROJECT");
          while (r.next()) {
            out.printf("%-24s %-44s %-10s %-28s %s%n", r.getString("agent_session"), r.getString("browser_session"),
                r.getInt("generation") == 0 ? "-" : r.getInt("generation"),
                Optional.ofNullable(r.getString("checkpointed_at")).orElse("none"), r.getString("project"));
          }
        }
      }
      return null;
    });
  }

  /** The audit trail of the browser sessions an agent session id (or a browser session id) names. */
  void transitions(String session, Optional<Path> project, PrintStream out) {
    query(true, c -> {
      List<String> browserSessions = new ArrayList<>();
      try (PreparedStatement q = c.prepareStatement("SELECT browser_session FROM agent_sessions"
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
        throw new HarnessException("no agent or browser session \"" + session + "\" in profile " + profile.name());
      }
      for (String browserSession : browserSessions) {
        out.println("Browser session " + browserSession);
        try (PreparedStatement q = c.prepareStatement(
            "SELECT * FROM transitions WHERE browser_session = ? ORDER BY started_at")) {
          q.setString(1, browserSession);
          try (ResultSet r = q.executeQuery()) {
            while (r.next()) {
              out.printf("  %s gen %d %-10s %-9s %5d ms  %s -> %s%s%n", r.getString("started_at"),
                  r.getInt("generation"), r.getString("action_kind"), r.getString("outcome"),
                  r.getLong("duration_ms"), Optional.ofNullable(r.getString("before_url")).orElse("-"),
                  Optional.ofNullable(r.getString("after_url")).orElse("-"),
                  r.getString("error_code") == null ? "" : "  " + r.getString("error_code"));
            }
          }
        }
      }
      return null;
    });
  }

  /** Lists checkpoints, or with {@code clear} deletes them: metadata first, then each payload. */
  void checkpoints(boolean clear, PrintStream out) {
    List<String[]> rows = query(!clear, c -> {
      List<String[]> all = new ArrayList<>();
      try (PreparedStatement q = c.prepareStatement("SELECT * FROM checkpoints ORDER BY created_at");
          ResultSet r = q.executeQuery()) {
        while (r.next()) {
          all.add(new String[] {r.getString("browser_session"), r.getString("provider"),
              r.getString("provider_version"), String.valueOf(r.getInt("generation")), r.getString("created_at"),
              r.getString("ref")});
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
      out.println("Cleared " + rows.size() + " checkpoint(s) of profile " + profile.name() + " (" + deleted
          + " payload file(s) deleted). Their browser sessions start fresh.");
      return;
    }
    out.printf("%-44s %-10s %-36s %-10s %-28s %s%n", "BROWSER SESSION", "PROVIDER", "BUILD", "GENERATION",
        "WRITTEN", "PAYLOAD BYTES");
    for (String[] row : rows) {
      Path payload = payloads.resolve(row[5]);
      String size;
      try {
        size = Files.isRegularFile(payload, LinkOption.NOFOLLOW_LINKS) ? String.valueOf(Files.size(payload))
            : "missing";
      } catch (IOException e) {
        size = "unreadable";
      }
      out.printf("%-44s %-10s %-36s %-10s %-28s %s%n", row[0], row[1], row[2], row[3], row[4], size);
    }
  }

  private interface Query<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T query(boolean readOnly, Query<T> query) {
    if (!Files.isRegularFile(database)) {
      throw new HarnessException("profile " + profile.name() + " has no browser sessions yet (no " + database + ")");
    }
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(readOnly);
    config.setBusyTimeout(5000);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database, config.toProperties())) {
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
