package dev.periscope.browser.store;

import dev.periscope.api.ProjectContext;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.host.Migration;
import dev.periscope.api.host.StorageDomain;
import dev.periscope.api.host.StorageDomainService;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * Maps each host agent session, within its project, to a durable browser-session id in the
 * {@code browser_runtime} storage domain: created on first use, the same after a restart.
 */
public final class AgentSessionStore implements AutoCloseable {
  public static final String DOMAIN = "browser_runtime";

  static final List<Migration> MIGRATIONS = List.of(new Migration(1,
      "CREATE TABLE agent_sessions (project TEXT NOT NULL, agent_session TEXT NOT NULL,"
          + " browser_session TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (project, agent_session))"));

  private final StorageDomain domain;
  private final String project;

  public AgentSessionStore(StorageDomainService storage, ProjectContext project) {
    this.domain = storage.open(DOMAIN, MIGRATIONS);
    this.project = project.projectDir().toString();
  }

  /** The browser session of an agent session, created on first use; concurrent first calls create one. */
  public BrowserSessionId browserSessionFor(String agentSessionId) {
    try {
      return domain.transaction(c -> {
        try (PreparedStatement insert = c.prepareStatement(
            "INSERT OR IGNORE INTO agent_sessions VALUES (?, ?, ?, ?)")) {
          insert.setString(1, project);
          insert.setString(2, agentSessionId);
          insert.setString(3, BrowserSessionId.random().value());
          insert.setString(4, Instant.now().toString());
          insert.executeUpdate();
        }
        try (PreparedStatement select = c.prepareStatement(
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
      throw new IllegalStateException("cannot map agent session " + agentSessionId + " to a browser session: "
          + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    domain.close();
  }
}
