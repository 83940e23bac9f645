package dev.periscope.browser.store;

import dev.periscope.api.ProjectContext;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.host.StorageDomain;
import dev.periscope.browser.runtime.SessionDirectory;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Maps each host agent session, within its project (keyed by the project's canonical real path), to
 * a durable browser-session id in the {@code agent_sessions} table: created on first use, the same
 * after any restart, replaced only when the browser session is discarded ({@code browser_reset}).
 */
public final class AgentSessionStore implements SessionDirectory {
  private final StorageDomain domain;
  private final String project;

  public AgentSessionStore(RuntimeDatabase database, ProjectContext project) {
    this.domain = database.domain();
    this.project = project.projectDir().toString();
  }

  /**
   * The browser session of an agent session, created on first use; concurrent first calls create
   * one.
   */
  @Override
  public BrowserSessionId sessionFor(String agentSessionId) {
    try {
      return domain.transaction(
          c -> {
            try (PreparedStatement insert =
                c.prepareStatement("INSERT OR IGNORE INTO agent_sessions VALUES (?, ?, ?, ?)")) {
              insert.setString(1, project);
              insert.setString(2, agentSessionId);
              insert.setString(3, BrowserSessionId.random().value());
              insert.setString(4, Instant.now().toString());
              insert.executeUpdate();
            }
            try (PreparedStatement select =
                c.prepareStatement(
                    "SELECT browser_session FROM agent_sessions WHERE project = ? AND agent_session = ?")) {
              select.setString(1, project);
              select.setString(2, agentSessionId);
              try (ResultSet r = select.executeQuery()) {
                r.next();
                return new BrowserSessionId(r.getString(1));
              }
            }
          });
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot map agent session " + agentSessionId + " to a browser session: " + e.getMessage(),
          e);
    }
  }

  /** Gives the agent session a new browser session, its old one being discarded. */
  @Override
  public BrowserSessionId replace(String agentSessionId) {
    BrowserSessionId fresh = BrowserSessionId.random();
    try {
      domain.transaction(
          c -> {
            try (PreparedStatement upsert =
                c.prepareStatement(
                    "INSERT INTO agent_sessions VALUES (?, ?, ?, ?) ON CONFLICT (project, agent_session)"
                        + " DO UPDATE SET browser_session = excluded.browser_session, created_at = excluded.created_at")) {
              upsert.setString(1, project);
              upsert.setString(2, agentSessionId);
              upsert.setString(3, fresh.value());
              upsert.setString(4, Instant.now().toString());
              return upsert.executeUpdate();
            }
          });
      return fresh;
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot give agent session "
              + agentSessionId
              + " a new browser session: "
              + e.getMessage(),
          e);
    }
  }
}
