package dev.periscope.browser.store;

import dev.periscope.api.host.Migration;
import dev.periscope.api.host.StorageDomain;
import dev.periscope.api.host.StorageDomainService;
import java.util.List;

/**
 * The {@code browser_runtime} storage domain and its schema: {@code agent_sessions}, {@code
 * checkpoints} and {@code transitions} (with the {@code cause} of fault and recover records since
 * version 3, the {@code placement} since 4, the {@code environment_ms} a call waited since 5), and
 * since 6 the sessions' recordings ({@code recording_frames}, {@code recordings}). A database whose
 * schema is newer than this plugin knows fails closed: it is closed again, untouched, with a
 * message naming both versions.
 */
public final class RuntimeDatabase implements AutoCloseable {
  public static final String DOMAIN = "browser_runtime";

  static final List<Migration> MIGRATIONS =
      List.of(
          new Migration(
              1,
              """
          CREATE TABLE agent_sessions (project TEXT NOT NULL, agent_session TEXT NOT NULL,
            browser_session TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (project, agent_session))"""),
          new Migration(
              2,
              """
          CREATE TABLE checkpoints (browser_session TEXT PRIMARY KEY, provider TEXT NOT NULL, provider_version TEXT,
            ref TEXT NOT NULL, generation INTEGER NOT NULL, created_at TEXT NOT NULL);
          CREATE TABLE transitions (id TEXT PRIMARY KEY, browser_session TEXT NOT NULL, environment TEXT NOT NULL,
            provider TEXT NOT NULL, generation INTEGER NOT NULL, action_kind TEXT NOT NULL, outcome TEXT NOT NULL,
            before_observation TEXT, before_digest TEXT, before_url TEXT, before_revision INTEGER,
            after_observation TEXT, after_digest TEXT, after_url TEXT, after_revision INTEGER,
            started_at TEXT NOT NULL, finished_at TEXT NOT NULL, duration_ms INTEGER NOT NULL,
            action_ms INTEGER NOT NULL, observation_ms INTEGER NOT NULL, text_chars INTEGER NOT NULL,
            element_count INTEGER NOT NULL, text_truncated INTEGER NOT NULL, elements_truncated INTEGER NOT NULL,
            error_code TEXT);
          CREATE INDEX transitions_by_session ON transitions (browser_session, started_at)"""),
          // The cause of a fault (page-crashed, unresponsive, ...) on fault and recover records.
          new Migration(3, "ALTER TABLE transitions ADD COLUMN cause TEXT"),
          // Where the environment's browser ran, when its provider says (a Selenium Grid node).
          new Migration(4, "ALTER TABLE transitions ADD COLUMN placement TEXT"),
          // How long the call waited for its environment before the action (a browser starting).
          new Migration(
              5, "ALTER TABLE transitions ADD COLUMN environment_ms INTEGER NOT NULL DEFAULT 0"),
          // Each session's recording: a frame after each action, and what its budget dropped.
          new Migration(
              6,
              """
          CREATE TABLE recording_frames (seq INTEGER PRIMARY KEY AUTOINCREMENT,
            browser_session TEXT NOT NULL, transition TEXT NOT NULL, at TEXT NOT NULL,
            generation INTEGER NOT NULL, action TEXT NOT NULL, outcome TEXT NOT NULL, error_code TEXT,
            duration_ms INTEGER NOT NULL, url TEXT, title TEXT, observation TEXT, page_events TEXT,
            files TEXT, image_ref TEXT, image_bytes INTEGER NOT NULL, bytes INTEGER NOT NULL);
          CREATE INDEX recording_frames_by_session ON recording_frames (browser_session, seq);
          CREATE TABLE recording_failures (seq INTEGER PRIMARY KEY AUTOINCREMENT,
            browser_session TEXT NOT NULL, at TEXT NOT NULL, transition TEXT, failure TEXT NOT NULL);
          CREATE INDEX recording_failures_by_session ON recording_failures (browser_session, seq);
          CREATE TABLE recordings (browser_session TEXT PRIMARY KEY,
            dropped_frames INTEGER NOT NULL DEFAULT 0, dropped_bytes INTEGER NOT NULL DEFAULT 0)"""),
          // The secrets that had gone into a session's pages when its checkpoint was written:
          // references and origins as JSON, never values.
          new Migration(7, "ALTER TABLE checkpoints ADD COLUMN secrets TEXT"));

  static final int VERSION = MIGRATIONS.get(MIGRATIONS.size() - 1).version();

  private final StorageDomain domain;

  public RuntimeDatabase(StorageDomainService storage) {
    StorageDomain opened = storage.open(DOMAIN, MIGRATIONS);
    if (opened.schemaVersion() > VERSION) {
      int found = opened.schemaVersion();
      opened.close();
      throw new IllegalStateException(
          "the "
              + DOMAIN
              + " database has schema version "
              + found
              + ", newer than this browser plugin understands ("
              + VERSION
              + "); it was left unchanged. Install the"
              + " browser plugin release that wrote it, or a newer one.");
    }
    this.domain = opened;
  }

  StorageDomain domain() {
    return domain;
  }

  @Override
  public void close() {
    domain.close();
  }
}
