package dev.periscope.browser.store;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Transition;
import dev.periscope.api.browser.TransitionRecord;
import dev.periscope.api.host.StorageDomain;
import dev.periscope.browser.runtime.TransitionLog;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The audit trail in the {@code transitions} table: compact records, never page text, never values.
 */
public final class SqliteTransitionLog implements TransitionLog {
  private final StorageDomain domain;

  public SqliteTransitionLog(RuntimeDatabase database) {
    this.domain = database.domain();
  }

  @Override
  public void append(TransitionRecord t) {
    try {
      domain.transaction(
          c -> {
            try (PreparedStatement insert =
                c.prepareStatement(
                    "INSERT OR REPLACE INTO transitions VALUES"
                        + " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                        + " ?)")) {
              int i = 0;
              insert.setString(++i, t.id());
              insert.setString(++i, t.sessionId());
              insert.setString(++i, t.environmentId());
              insert.setString(++i, t.providerId());
              insert.setInt(++i, t.generation());
              insert.setString(++i, t.actionKind());
              insert.setString(++i, t.outcome().name().toLowerCase(Locale.ROOT));
              for (TransitionRecord.Evidence e : List.of(t.before(), t.after())) {
                insert.setString(++i, e.observationId());
                insert.setString(++i, e.digest());
                insert.setString(++i, e.url());
                if (e.revision() == null) {
                  insert.setNull(++i, Types.INTEGER);
                } else {
                  insert.setInt(++i, e.revision());
                }
              }
              insert.setString(++i, t.startedAt().toString());
              insert.setString(++i, t.finishedAt().toString());
              Transition.Metrics m = t.metrics();
              insert.setLong(++i, m.durationMs());
              insert.setLong(++i, m.actionMs());
              insert.setLong(++i, m.observationMs());
              insert.setInt(++i, m.textChars());
              insert.setInt(++i, m.elementCount());
              insert.setInt(++i, m.textTruncated() ? 1 : 0);
              insert.setInt(++i, m.elementsTruncated() ? 1 : 0);
              insert.setString(++i, t.error() == null ? null : t.error().name());
              insert.setString(++i, t.cause());
              insert.setString(++i, t.placement());
              insert.setLong(++i, m.environmentMs());
              return insert.executeUpdate();
            }
          });
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  @Override
  public List<TransitionRecord> list(BrowserSessionId sessionId, int limit) {
    try {
      return domain.transaction(
          c -> {
            List<TransitionRecord> out = new ArrayList<>();
            try (PreparedStatement select =
                c.prepareStatement(
                    "SELECT * FROM (SELECT * FROM transitions"
                        + " WHERE browser_session = ? ORDER BY started_at DESC LIMIT ?) ORDER BY started_at")) {
              select.setString(1, sessionId.value());
              select.setInt(2, limit);
              try (ResultSet r = select.executeQuery()) {
                while (r.next()) {
                  out.add(record(r));
                }
              }
            }
            return out;
          });
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static TransitionRecord record(ResultSet r) throws SQLException {
    return new TransitionRecord(
        r.getString("id"),
        r.getString("browser_session"),
        r.getString("environment"),
        r.getString("provider"),
        r.getInt("generation"),
        r.getString("action_kind"),
        Transition.Outcome.valueOf(r.getString("outcome").toUpperCase(Locale.ROOT)),
        evidence(r, "before_"),
        evidence(r, "after_"),
        Instant.parse(r.getString("started_at")),
        Instant.parse(r.getString("finished_at")),
        new Transition.Metrics(
            r.getLong("duration_ms"),
            r.getLong("action_ms"),
            r.getLong("observation_ms"),
            r.getInt("text_chars"),
            r.getInt("element_count"),
            r.getInt("text_truncated") == 1,
            r.getInt("elements_truncated") == 1,
            r.getLong("environment_ms")),
        r.getString("error_code") == null ? null : ErrorCode.valueOf(r.getString("error_code")),
        r.getString("cause"),
        r.getString("placement"));
  }

  private static TransitionRecord.Evidence evidence(ResultSet r, String side) throws SQLException {
    int revision = r.getInt(side + "revision");
    Integer rev = r.wasNull() ? null : revision;
    return new TransitionRecord.Evidence(
        r.getString(side + "observation"),
        r.getString(side + "digest"),
        r.getString(side + "url"),
        rev);
  }
}
