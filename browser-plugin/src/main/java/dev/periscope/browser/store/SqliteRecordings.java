package dev.periscope.browser.store;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.host.AttachmentMetadata;
import dev.periscope.api.host.AttachmentService;
import dev.periscope.api.host.StorageDomain;
import dev.periscope.browser.runtime.RecordingStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions' recordings: each frame a row of {@code recording_frames} (its text, already redacted)
 * and its image an attachment of the host's store; what the budget dropped in {@code recordings}.
 * Without an attachment store, frames keep their text and have no image.
 */
public final class SqliteRecordings implements RecordingStore {
  private static final Logger LOG = LoggerFactory.getLogger(SqliteRecordings.class);
  private static final com.google.gson.Gson JSON = new com.google.gson.Gson();

  private final StorageDomain domain;
  private final Optional<AttachmentService> attachments;

  public SqliteRecordings(RuntimeDatabase database, Optional<AttachmentService> attachments) {
    this.domain = database.domain();
    this.attachments = attachments;
  }

  /** One frame as kept: the image as its attachment ref (null when none was kept). */
  public record KeptFrame(
      long seq,
      String transitionId,
      String at,
      int generation,
      String action,
      String outcome,
      String errorCode,
      long durationMs,
      String url,
      String title,
      String observation,
      List<String> pageEvents,
      List<String> files,
      String imageRef,
      long bytes) {}

  /** A failure a call ended with, as the model read it, and the transition the call made. */
  public record Failure(String at, String transitionId, String text) {}

  /** A session's recording: its frames, oldest first, and what its budget dropped. */
  public record Recording(
      BrowserSessionId sessionId,
      List<KeptFrame> frames,
      List<Failure> failures,
      int droppedFrames,
      long droppedBytes) {
    public long bytes() {
      return frames.stream().mapToLong(KeptFrame::bytes).sum();
    }
  }

  @Override
  public void add(Frame f, long budgetBytes) {
    String ref = null;
    if (f.image() != null && attachments.isPresent()) {
      try {
        ref =
            attachments
                .get()
                .saveImage(
                    f.image(),
                    "image/jpeg",
                    new AttachmentMetadata("recording of " + f.sessionId().value(), null))
                .ref();
      } catch (RuntimeException e) {
        LOG.warn(
            "a frame of browser session {} was kept without its image: {}",
            f.sessionId(),
            e.getMessage());
      }
    }
    long imageBytes = ref == null ? 0 : f.image().length;
    String events = JSON.toJson(f.pageEvents());
    String files = JSON.toJson(f.files());
    long bytes =
        imageBytes
            + utf8(f.action())
            + utf8(f.url())
            + utf8(f.title())
            + utf8(f.observation())
            + utf8(events)
            + utf8(files);
    String imageRef = ref;
    List<String> dropped = new ArrayList<>();
    try {
      insert(f, imageRef, imageBytes, events, files, bytes, budgetBytes, dropped);
    } catch (RuntimeException e) {
      // No row names the image: it would be kept for nobody.
      if (imageRef != null) {
        deleteImage(imageRef);
      }
      throw e;
    }
    dropped.forEach(this::deleteImage);
  }

  private void insert(
      Frame f,
      String imageRef,
      long imageBytes,
      String events,
      String files,
      long bytes,
      long budgetBytes,
      List<String> dropped) {
    run(
        "record a frame",
        c -> {
          try (PreparedStatement insert =
              c.prepareStatement(
                  "INSERT INTO recording_frames (browser_session, transition, at, generation, action,"
                      + " outcome, error_code, duration_ms, url, title, observation, page_events,"
                      + " files, image_ref, image_bytes, bytes)"
                      + " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
            int i = 0;
            insert.setString(++i, f.sessionId().value());
            insert.setString(++i, f.transitionId());
            insert.setString(++i, f.at().toString());
            insert.setInt(++i, f.generation());
            insert.setString(++i, f.action());
            insert.setString(++i, f.outcome());
            insert.setString(++i, f.errorCode());
            insert.setLong(++i, f.durationMs());
            insert.setString(++i, f.url());
            insert.setString(++i, f.title());
            insert.setString(++i, f.observation());
            insert.setString(++i, events);
            insert.setString(++i, files);
            insert.setString(++i, imageRef);
            insert.setLong(++i, imageBytes);
            insert.setLong(++i, bytes);
            insert.executeUpdate();
          }
          dropped.addAll(overBudget(c, f.sessionId(), budgetBytes));
          return null;
        });
  }

  /**
   * Drops the session's oldest frames until it is within the budget, and counts them; returns the
   * dropped frames' image refs, deleted once the rows are.
   */
  private static List<String> overBudget(Connection c, BrowserSessionId session, long budget)
      throws SQLException {
    List<long[]> frames = new ArrayList<>();
    List<String> refs = new ArrayList<>();
    long total = 0;
    try (PreparedStatement q =
        c.prepareStatement(
            "SELECT seq, bytes, image_ref FROM recording_frames WHERE browser_session = ? ORDER BY seq")) {
      q.setString(1, session.value());
      try (ResultSet r = q.executeQuery()) {
        while (r.next()) {
          frames.add(new long[] {r.getLong(1), r.getLong(2)});
          refs.add(r.getString(3));
          total += r.getLong(2);
        }
      }
    }
    List<String> dropped = new ArrayList<>();
    int count = 0;
    long bytes = 0;
    for (int i = 0; i < frames.size() && total > budget; i++) {
      try (PreparedStatement d = c.prepareStatement("DELETE FROM recording_frames WHERE seq = ?")) {
        d.setLong(1, frames.get(i)[0]);
        d.executeUpdate();
      }
      total -= frames.get(i)[1];
      bytes += frames.get(i)[1];
      count++;
      if (refs.get(i) != null) {
        dropped.add(refs.get(i));
      }
    }
    if (count > 0) {
      try (PreparedStatement u =
          c.prepareStatement(
              "INSERT INTO recordings (browser_session, dropped_frames, dropped_bytes) VALUES (?, ?, ?)"
                  + " ON CONFLICT (browser_session) DO UPDATE SET"
                  + " dropped_frames = dropped_frames + excluded.dropped_frames,"
                  + " dropped_bytes = dropped_bytes + excluded.dropped_bytes")) {
        u.setString(1, session.value());
        u.setInt(2, count);
        u.setLong(3, bytes);
        u.executeUpdate();
      }
    }
    return dropped;
  }

  @Override
  public void failure(
      BrowserSessionId session, java.time.Instant at, String transitionId, String text) {
    run(
        "record a failure",
        c -> {
          try (PreparedStatement insert =
              c.prepareStatement(
                  "INSERT INTO recording_failures (browser_session, at, transition, failure)"
                      + " VALUES (?, ?, ?, ?)")) {
            insert.setString(1, session.value());
            insert.setString(2, at.toString());
            insert.setString(3, transitionId);
            insert.setString(4, text);
            return insert.executeUpdate();
          }
        });
  }

  @Override
  public void dropUnlessFailed(BrowserSessionId session) {
    boolean failed =
        run(
            "read the recording of " + session,
            c -> {
              try (PreparedStatement q =
                  c.prepareStatement(
                      "SELECT EXISTS (SELECT 1 FROM recording_frames WHERE browser_session = ?"
                          + " AND outcome <> 'succeeded') OR EXISTS (SELECT 1 FROM transitions"
                          + " WHERE browser_session = ? AND action_kind = 'fault')")) {
                q.setString(1, session.value());
                q.setString(2, session.value());
                try (ResultSet r = q.executeQuery()) {
                  return r.next() && r.getInt(1) == 1;
                }
              }
            });
    if (!failed) {
      delete(session);
    }
  }

  @Override
  public void delete(BrowserSessionId session) {
    List<String> refs =
        run(
            "delete the recording of " + session,
            c -> {
              List<String> out = new ArrayList<>();
              try (PreparedStatement q =
                  c.prepareStatement(
                      "SELECT image_ref FROM recording_frames WHERE browser_session = ?"
                          + " AND image_ref IS NOT NULL")) {
                q.setString(1, session.value());
                try (ResultSet r = q.executeQuery()) {
                  while (r.next()) {
                    out.add(r.getString(1));
                  }
                }
              }
              for (String sql :
                  List.of(
                      "DELETE FROM recording_frames WHERE browser_session = ?",
                      "DELETE FROM recording_failures WHERE browser_session = ?",
                      "DELETE FROM recordings WHERE browser_session = ?")) {
                try (PreparedStatement d = c.prepareStatement(sql)) {
                  d.setString(1, session.value());
                  d.executeUpdate();
                }
              }
              return out;
            });
    refs.forEach(this::deleteImage);
  }

  /** The session's recording, or empty when it has none (never recorded, or deleted). */
  public Optional<Recording> recording(BrowserSessionId session) {
    return run(
        "read the recording of " + session,
        c -> {
          List<KeptFrame> frames = new ArrayList<>();
          try (PreparedStatement q =
              c.prepareStatement(
                  "SELECT * FROM recording_frames WHERE browser_session = ? ORDER BY seq")) {
            q.setString(1, session.value());
            try (ResultSet r = q.executeQuery()) {
              while (r.next()) {
                frames.add(frame(r));
              }
            }
          }
          List<Failure> failures = new ArrayList<>();
          try (PreparedStatement q =
              c.prepareStatement(
                  "SELECT * FROM recording_failures WHERE browser_session = ? ORDER BY seq")) {
            q.setString(1, session.value());
            try (ResultSet r = q.executeQuery()) {
              while (r.next()) {
                failures.add(
                    new Failure(
                        r.getString("at"), r.getString("transition"), r.getString("failure")));
              }
            }
          }
          int droppedFrames = 0;
          long droppedBytes = 0;
          try (PreparedStatement q =
              c.prepareStatement("SELECT * FROM recordings WHERE browser_session = ?")) {
            q.setString(1, session.value());
            try (ResultSet r = q.executeQuery()) {
              if (r.next()) {
                droppedFrames = r.getInt("dropped_frames");
                droppedBytes = r.getLong("dropped_bytes");
              }
            }
          }
          return frames.isEmpty() && droppedFrames == 0 && failures.isEmpty()
              ? Optional.<Recording>empty()
              : Optional.of(new Recording(session, frames, failures, droppedFrames, droppedBytes));
        });
  }

  private static List<String> strings(String json) {
    List<String> out = new ArrayList<>();
    if (json != null) {
      for (var e : JSON.fromJson(json, com.google.gson.JsonArray.class)) {
        out.add(e.getAsString());
      }
    }
    return out;
  }

  private static KeptFrame frame(ResultSet r) throws SQLException {
    return new KeptFrame(
        r.getLong("seq"),
        r.getString("transition"),
        r.getString("at"),
        r.getInt("generation"),
        r.getString("action"),
        r.getString("outcome"),
        r.getString("error_code"),
        r.getLong("duration_ms"),
        r.getString("url"),
        r.getString("title"),
        r.getString("observation"),
        strings(r.getString("page_events")),
        strings(r.getString("files")),
        r.getString("image_ref"),
        r.getLong("bytes"));
  }

  private void deleteImage(String ref) {
    try {
      attachments.ifPresent(a -> a.delete(ref));
    } catch (RuntimeException e) {
      LOG.warn("the recording's image {} was not deleted: {}", ref, e.getMessage());
    }
  }

  private static long utf8(String s) {
    return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
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
