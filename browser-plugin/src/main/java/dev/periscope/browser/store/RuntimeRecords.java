package dev.periscope.browser.store;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.spi.EnvironmentFault;
import dev.periscope.api.host.StorageDomain;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What operators may ask of the {@code browser_runtime} domain, read-only except {@link
 * #forgetProject}: the agent-session map with each browser session's generation and last
 * checkpoint, the checkpoint rows, and the browser sessions whose last environment a fault ended.
 * The operator tools ({@code browser-operator} skill) answer from here, so no host reads these
 * tables itself.
 */
public final class RuntimeRecords {
  /** An agent session of a project, its browser session, generation and last checkpoint time. */
  public record SessionRow(
      String project,
      String agentSession,
      BrowserSessionId browserSession,
      int generation,
      Optional<String> checkpointedAt) {}

  /** One checkpoint: its browser session, provider and build, generation, time and payload ref. */
  public record CheckpointRow(
      BrowserSessionId browserSession,
      String provider,
      String providerVersion,
      int generation,
      String createdAt,
      String ref) {}

  /**
   * A browser session whose newest environment a fault ended, and nothing has opened since: when,
   * the cause and the failure code, with the agent sessions it belongs to.
   */
  public record Fault(
      BrowserSessionId browserSession,
      List<String> agentSessions,
      String at,
      String cause,
      String code,
      String url) {}

  /**
   * One transition of the audit trail as the index keeps it: times as written, codes and causes as
   * strings, so a row written by another release still prints.
   */
  public record TransitionRow(
      String startedAt,
      int generation,
      String action,
      String outcome,
      long durationMs,
      String beforeUrl,
      String afterUrl,
      String errorCode,
      String cause,
      String placement,
      long environmentMs,
      String id) {}

  private final StorageDomain domain;

  public RuntimeRecords(RuntimeDatabase database) {
    this.domain = database.domain();
  }

  public int schemaVersion() {
    return domain.schemaVersion();
  }

  /** Agent sessions of one project (a canonical path), or of every project, in project order. */
  public List<SessionRow> sessions(Optional<String> project) {
    return run(
        "list the agent sessions",
        c -> {
          List<SessionRow> rows = new ArrayList<>();
          try (PreparedStatement q =
              c.prepareStatement(
                  """
          SELECT a.project, a.agent_session, a.browser_session,
            MAX(COALESCE((SELECT MAX(generation) FROM transitions t WHERE t.browser_session = a.browser_session), 0),
                COALESCE(k.generation, 0)) AS generation,
            k.created_at AS checkpointed_at
          FROM agent_sessions a LEFT JOIN checkpoints k ON k.browser_session = a.browser_session
          WHERE ? IS NULL OR a.project = ? ORDER BY a.project, a.agent_session""")) {
            q.setString(1, project.orElse(null));
            q.setString(2, project.orElse(null));
            try (ResultSet r = q.executeQuery()) {
              while (r.next()) {
                rows.add(
                    new SessionRow(
                        r.getString("project"),
                        r.getString("agent_session"),
                        new BrowserSessionId(r.getString("browser_session")),
                        r.getInt("generation"),
                        Optional.ofNullable(r.getString("checkpointed_at"))));
              }
            }
          }
          return rows;
        });
  }

  /**
   * The browser sessions a name stands for: an agent session's (in one project, or any), or the
   * browser session of that id.
   */
  public List<BrowserSessionId> browserSessionsOf(String session, Optional<String> project) {
    return run(
        "find session " + session,
        c -> {
          List<BrowserSessionId> out = new ArrayList<>();
          try (PreparedStatement q =
              c.prepareStatement(
                  "SELECT DISTINCT browser_session FROM agent_sessions"
                      + " WHERE (agent_session = ? AND (? IS NULL OR project = ?)) OR browser_session = ?")) {
            q.setString(1, session);
            q.setString(2, project.orElse(null));
            q.setString(3, project.orElse(null));
            q.setString(4, session);
            try (ResultSet r = q.executeQuery()) {
              while (r.next()) {
                out.add(new BrowserSessionId(r.getString(1)));
              }
            }
          }
          return out;
        });
  }

  /** Every transition the index keeps of one browser session, oldest first. */
  public List<TransitionRow> transitions(BrowserSessionId session) {
    return run(
        "read the transitions of " + session,
        c -> {
          List<TransitionRow> rows = new ArrayList<>();
          try (PreparedStatement q =
              c.prepareStatement(
                  "SELECT * FROM transitions WHERE browser_session = ?"
                      + " ORDER BY julianday(started_at), started_at")) {
            q.setString(1, session.value());
            try (ResultSet r = q.executeQuery()) {
              while (r.next()) {
                rows.add(
                    new TransitionRow(
                        r.getString("started_at"),
                        r.getInt("generation"),
                        r.getString("action_kind"),
                        r.getString("outcome"),
                        r.getLong("duration_ms"),
                        r.getString("before_url"),
                        r.getString("after_url"),
                        r.getString("error_code"),
                        r.getString("cause"),
                        r.getString("placement"),
                        r.getLong("environment_ms"),
                        r.getString("id")));
              }
            }
          }
          return rows;
        });
  }

  /** Every checkpoint row, oldest first. */
  public List<CheckpointRow> checkpoints() {
    return run(
        "list the checkpoints",
        c -> {
          List<CheckpointRow> rows = new ArrayList<>();
          try (PreparedStatement q =
                  c.prepareStatement("SELECT * FROM checkpoints ORDER BY created_at");
              ResultSet r = q.executeQuery()) {
            while (r.next()) {
              rows.add(
                  new CheckpointRow(
                      new BrowserSessionId(r.getString("browser_session")),
                      r.getString("provider"),
                      r.getString("provider_version"),
                      r.getInt("generation"),
                      r.getString("created_at"),
                      r.getString("ref")));
            }
          }
          return rows;
        });
  }

  /** SQLite's integrity check of the database: {@code ok}, or what it found. */
  public String integrity() {
    return run(
        "check the integrity",
        c -> {
          try (PreparedStatement q = c.prepareStatement("PRAGMA integrity_check");
              ResultSet r = q.executeQuery()) {
            return r.next() ? r.getString(1) : "no answer";
          }
        });
  }

  /** How many agent sessions the map holds, in every project. */
  public int agentSessionCount() {
    return run(
        "count the agent sessions",
        c -> {
          try (PreparedStatement q = c.prepareStatement("SELECT COUNT(*) FROM agent_sessions");
              ResultSet r = q.executeQuery()) {
            return r.next() ? r.getInt(1) : 0;
          }
        });
  }

  /**
   * The browser sessions whose last environment ended by a fault: a {@code fault} record that
   * nothing of the session followed (a {@code recover}, or any action of a later environment, in
   * this process or another); newest first. Times are compared as times, whatever their precision.
   * A retirement (cause {@code retiring}: a working browser checkpointed and moved off a draining
   * Grid node) is recorded as a fault but is none, and is not listed; the journal shows it.
   */
  public List<Fault> faults() {
    return run(
        "list the faults",
        c -> {
          List<Fault> out = new ArrayList<>();
          try (PreparedStatement q =
              c.prepareStatement(
                  """
          SELECT t.browser_session, t.started_at, t.cause, t.error_code, t.before_url,
            (SELECT group_concat(a.agent_session, ', ') FROM agent_sessions a
              WHERE a.browser_session = t.browser_session) AS agents
          FROM transitions t
          WHERE t.action_kind = 'fault' AND t.cause IS NOT ?
            AND NOT EXISTS (SELECT 1 FROM transitions n
            WHERE n.browser_session = t.browser_session AND n.id <> t.id
              AND julianday(n.started_at) >= julianday(t.started_at))
          ORDER BY julianday(t.started_at) DESC""")) {
            q.setString(1, EnvironmentFault.Cause.RETIRING.id());
            try (ResultSet r = q.executeQuery()) {
              while (r.next()) {
                String agents = r.getString("agents");
                out.add(
                    new Fault(
                        new BrowserSessionId(r.getString("browser_session")),
                        agents == null ? List.of() : List.of(agents.split(", ")),
                        r.getString("started_at"),
                        r.getString("cause"),
                        r.getString("error_code"),
                        r.getString("before_url")));
              }
            }
          }
          return out;
        });
  }

  /**
   * The journal's kinds: what happened to a browser session rather than what an agent did with it
   * (a fault and the recovery after it, a challenge the page began to show).
   */
  public static final List<String> JOURNAL_KINDS =
      List.of("fault", "recover", "challenge", "handoff", "attach", "detach", "egress");

  /** One journal event of a browser session. */
  public record JournalEvent(
      BrowserSessionId browserSession,
      List<String> agentSessions,
      String at,
      String kind,
      String cause,
      String code,
      String url) {}

  /**
   * The newest journal events ({@link #JOURNAL_KINDS}), at most {@code perSession} of each browser
   * session and {@code limit} in all; newest first.
   */
  public List<JournalEvent> journal(int perSession, int limit) {
    return run(
        "read the journal",
        c -> {
          List<JournalEvent> out = new ArrayList<>();
          String kinds = String.join(",", JOURNAL_KINDS.stream().map(k -> "'" + k + "'").toList());
          try (PreparedStatement q =
              c.prepareStatement(
                  """
          SELECT e.*, (SELECT group_concat(a.agent_session, ', ') FROM agent_sessions a
              WHERE a.browser_session = e.browser_session) AS agents
          FROM (SELECT t.browser_session, t.started_at, t.action_kind, t.cause, t.error_code,
              COALESCE(t.after_url, t.before_url) AS url,
              ROW_NUMBER() OVER (PARTITION BY t.browser_session
                ORDER BY julianday(t.started_at) DESC, t.rowid DESC) AS n
            FROM transitions t WHERE t.action_kind IN (%s)) e
          WHERE e.n <= ? ORDER BY julianday(e.started_at) DESC LIMIT ?"""
                      .formatted(kinds))) {
            q.setInt(1, perSession);
            q.setInt(2, limit);
            try (ResultSet r = q.executeQuery()) {
              while (r.next()) {
                String agents = r.getString("agents");
                out.add(
                    new JournalEvent(
                        new BrowserSessionId(r.getString("browser_session")),
                        agents == null ? List.of() : List.of(agents.split(", ")),
                        r.getString("started_at"),
                        r.getString("action_kind"),
                        r.getString("cause"),
                        r.getString("error_code"),
                        r.getString("url")));
              }
            }
          }
          return out;
        });
  }

  /** The browser sessions of a project's agent sessions. */
  public List<BrowserSessionId> browserSessionsOfProject(String project) {
    return run(
        "list the browser sessions of " + project,
        c -> {
          List<BrowserSessionId> out = new ArrayList<>();
          try (PreparedStatement q =
              c.prepareStatement("SELECT browser_session FROM agent_sessions WHERE project = ?")) {
            q.setString(1, project);
            try (ResultSet r = q.executeQuery()) {
              while (r.next()) {
                out.add(new BrowserSessionId(r.getString(1)));
              }
            }
          }
          return out;
        });
  }

  /**
   * Forgets every agent session of a project and the transitions of their browser sessions. The
   * caller discards their checkpoints first, so none is left without its session.
   */
  public void forgetProject(String project) {
    run(
        "forget the agent sessions of " + project,
        c -> {
          for (String sql :
              List.of(
                  "DELETE FROM transitions WHERE browser_session IN"
                      + " (SELECT browser_session FROM agent_sessions WHERE project = ?)",
                  "DELETE FROM agent_sessions WHERE project = ?")) {
            try (PreparedStatement d = c.prepareStatement(sql)) {
              d.setString(1, project);
              d.executeUpdate();
            }
          }
          return null;
        });
  }

  private interface Query<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T run(String what, Query<T> query) {
    try {
      return domain.transaction(query::run);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot " + what + " in " + RuntimeDatabase.DOMAIN + ": " + e.getMessage(), e);
    }
  }
}
