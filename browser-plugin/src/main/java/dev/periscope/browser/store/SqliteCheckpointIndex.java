package dev.periscope.browser.store;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.spi.CheckpointRef;
import dev.periscope.api.host.StorageDomain;
import dev.periscope.browser.runtime.CheckpointIndex;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The checkpoint index in the {@code checkpoints} table: one row per browser session, its newest
 * checkpoint.
 */
public final class SqliteCheckpointIndex implements CheckpointIndex {
  private static final com.google.gson.Gson JSON = new com.google.gson.Gson();
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(SqliteCheckpointIndex.class);

  private final StorageDomain domain;

  public SqliteCheckpointIndex(RuntimeDatabase database) {
    this.domain = database.domain();
  }

  @Override
  public Optional<Entry> find(BrowserSessionId sessionId) {
    return run("read the checkpoint of " + sessionId, c -> find(c, sessionId));
  }

  @Override
  public Optional<Entry> put(Entry entry) {
    return run(
        "record the checkpoint of " + entry.sessionId(),
        c -> {
          Optional<Entry> previous = find(c, entry.sessionId());
          try (PreparedStatement upsert =
              c.prepareStatement(
                  "INSERT INTO checkpoints (browser_session, provider, provider_version, ref,"
                      + " generation, created_at, secrets) VALUES (?, ?, ?, ?, ?, ?, ?)"
                      + " ON CONFLICT (browser_session) DO UPDATE SET provider = excluded.provider,"
                      + " provider_version = excluded.provider_version, ref = excluded.ref, generation = excluded.generation,"
                      + " created_at = excluded.created_at, secrets = excluded.secrets")) {
            upsert.setString(1, entry.sessionId().value());
            upsert.setString(2, entry.checkpoint().providerId());
            upsert.setString(3, entry.checkpoint().providerVersion());
            upsert.setString(4, entry.checkpoint().ref());
            upsert.setInt(5, entry.generation());
            upsert.setString(6, entry.createdAt().toString());
            upsert.setString(7, entry.secrets().isEmpty() ? null : JSON.toJson(entry.secrets()));
            upsert.executeUpdate();
          }
          return previous;
        });
  }

  @Override
  public Optional<Entry> remove(BrowserSessionId sessionId) {
    return run(
        "remove the checkpoint of " + sessionId,
        c -> {
          Optional<Entry> previous = find(c, sessionId);
          try (PreparedStatement delete =
              c.prepareStatement("DELETE FROM checkpoints WHERE browser_session = ?")) {
            delete.setString(1, sessionId.value());
            delete.executeUpdate();
          }
          return previous;
        });
  }

  @Override
  public Optional<Entry> removeIfNames(BrowserSessionId sessionId, String ref) {
    return run(
        "remove the checkpoint of " + sessionId,
        c -> {
          Optional<Entry> previous = find(c, sessionId);
          if (previous.isEmpty() || !previous.get().checkpoint().ref().equals(ref)) {
            return Optional.<Entry>empty();
          }
          try (PreparedStatement delete =
              c.prepareStatement("DELETE FROM checkpoints WHERE browser_session = ?")) {
            delete.setString(1, sessionId.value());
            delete.executeUpdate();
          }
          return previous;
        });
  }

  @Override
  public List<Entry> entries() {
    return run(
        "list checkpoints",
        c -> {
          List<Entry> all = new ArrayList<>();
          try (PreparedStatement select = c.prepareStatement("SELECT * FROM checkpoints");
              ResultSet r = select.executeQuery()) {
            while (r.next()) {
              all.add(entry(r));
            }
          }
          return all;
        });
  }

  private static Optional<Entry> find(Connection c, BrowserSessionId sessionId)
      throws SQLException {
    try (PreparedStatement select =
        c.prepareStatement("SELECT * FROM checkpoints WHERE browser_session = ?")) {
      select.setString(1, sessionId.value());
      try (ResultSet r = select.executeQuery()) {
        return r.next() ? Optional.of(entry(r)) : Optional.empty();
      }
    }
  }

  private static Entry entry(ResultSet r) throws SQLException {
    return new Entry(
        new BrowserSessionId(r.getString("browser_session")),
        new CheckpointRef(
            r.getString("provider"), r.getString("provider_version"), r.getString("ref")),
        r.getInt("generation"),
        Instant.parse(r.getString("created_at")),
        secrets(r.getString("secrets")));
  }

  /**
   * The secrets column: a JSON array of {ref, origins}; none when it is empty (a checkpoint written
   * before the column was, too). A value this build did not write is warned of and read as none, so
   * that one damaged row does not stop every session's checkpoints from being read.
   */
  private static List<CheckpointIndex.FilledSecret> secrets(String json) {
    if (json == null || json.isBlank()) {
      return List.of();
    }
    try {
      List<CheckpointIndex.FilledSecret> out = new ArrayList<>();
      for (var e : JSON.fromJson(json, com.google.gson.JsonArray.class)) {
        var o = e.getAsJsonObject();
        List<String> origins = new ArrayList<>();
        o.getAsJsonArray("origins").forEach(origin -> origins.add(origin.getAsString()));
        out.add(new CheckpointIndex.FilledSecret(o.get("ref").getAsString(), origins));
      }
      return out;
    } catch (RuntimeException damaged) {
      LOG.warn(
          "a checkpoint's list of the secrets in its pages cannot be read ({}); it is taken as"
              + " naming none",
          damaged.getClass().getSimpleName());
      return List.of();
    }
  }

  private <T> T run(String what, StorageDomain.Work<T> work) {
    try {
      return domain.transaction(work);
    } catch (SQLException e) {
      throw new IllegalStateException("could not " + what + ": " + e.getMessage(), e);
    }
  }
}
