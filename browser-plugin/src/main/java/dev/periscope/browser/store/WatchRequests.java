package dev.periscope.browser.store;

import dev.periscope.api.host.Migration;
import dev.periscope.api.host.StorageDomain;
import dev.periscope.api.host.StorageDomainService;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The {@code browser_watch} storage domain: where an operator's request to watch a browser session
 * meets the process that runs it. Every process of a profile opens the same database, so the one
 * that asks (an operator tool, in a host of its own) and the one whose runtime holds the session's
 * environment need no other channel. A request is {@code asked}, then {@code claimed} by the one
 * process that runs the session, then {@code open} (with the view's place, never a token: only the
 * SHA-256 of the link's token is stored) or {@code refused} (with the reason); an operator's stop
 * marks it {@code stop}, and the process that holds it deletes it as the watch ends.
 */
public final class WatchRequests implements AutoCloseable {
  public static final String DOMAIN = "browser_watch";

  static final List<Migration> MIGRATIONS =
      List.of(
          new Migration(
              1,
              """
          CREATE TABLE watches (id TEXT PRIMARY KEY, browser_session TEXT NOT NULL,
            token_hash TEXT NOT NULL, expires_at_ms INTEGER NOT NULL, asked_at_ms INTEGER NOT NULL,
            state TEXT NOT NULL, held_by TEXT, place TEXT, reason TEXT);
          CREATE INDEX watches_by_state ON watches (state)"""));

  /** A request as a process reads it. */
  public record Request(
      String id,
      String browserSession,
      byte[] tokenHash,
      long expiresAtMs,
      String state,
      Optional<String> heldBy,
      Optional<String> place,
      Optional<String> reason) {}

  private final StorageDomain domain;

  public WatchRequests(StorageDomainService storage) {
    StorageDomain opened = storage.open(DOMAIN, MIGRATIONS);
    if (opened.schemaVersion() > MIGRATIONS.size()) {
      int found = opened.schemaVersion();
      opened.close();
      throw new IllegalStateException(
          "the "
              + DOMAIN
              + " database has schema version "
              + found
              + ", newer than this browser plugin understands ("
              + MIGRATIONS.size()
              + "); it was left unchanged");
    }
    this.domain = opened;
  }

  /** Asks for a watch of {@code browserSession}; returns the request's id. */
  public String ask(String browserSession, byte[] tokenHash, long expiresAtMs) {
    String id = java.util.UUID.randomUUID().toString();
    update(
        "INSERT INTO watches (id, browser_session, token_hash, expires_at_ms, asked_at_ms, state)"
            + " VALUES (?, ?, ?, ?, ?, 'asked')",
        id,
        browserSession,
        HexFormat.of().formatHex(tokenHash),
        expiresAtMs,
        System.currentTimeMillis());
    return id;
  }

  /** The request {@code id}, while it exists. */
  public Optional<Request> get(String id) {
    List<Request> found = select("SELECT * FROM watches WHERE id = ?", id);
    return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
  }

  /** The requests in {@code state}, oldest first. */
  public List<Request> inState(String state) {
    return select("SELECT * FROM watches WHERE state = ? ORDER BY asked_at_ms", state);
  }

  /** Takes an asked request for process {@code by}: true for the one process that gets it. */
  public boolean claim(String id, String by) {
    return update(
            "UPDATE watches SET state = 'claimed', held_by = ? WHERE id = ? AND state = 'asked'",
            by,
            id)
        == 1;
  }

  /** A claimed request's watch is open at {@code place}. */
  public void opened(String id, String place) {
    update(
        "UPDATE watches SET state = 'open', place = ? WHERE id = ? AND state = 'claimed'",
        place,
        id);
  }

  /** A claimed request cannot be served: {@code reason} says why. */
  public void refused(String id, String reason) {
    update(
        "UPDATE watches SET state = 'refused', reason = ? WHERE id = ? AND state = 'claimed'",
        reason,
        id);
  }

  /** Marks every open (or opening) watch of {@code browserSession} to stop; returns how many. */
  public int stop(String browserSession) {
    return update(
        "UPDATE watches SET state = 'stop' WHERE browser_session = ? AND state IN ('claimed',"
            + " 'open')",
        browserSession);
  }

  /** Withdraws a request that is still only asked (nobody claimed it); true when it was. */
  public boolean withdraw(String id) {
    return update("DELETE FROM watches WHERE id = ? AND state = 'asked'", id) == 1;
  }

  /** Forgets a request: its watch ended, or its answer was read. */
  public void delete(String id) {
    update("DELETE FROM watches WHERE id = ?", id);
  }

  /** Forgets the requests process {@code by} held: it stops, and its watches with it. */
  public void deleteHeldBy(String by) {
    update("DELETE FROM watches WHERE held_by = ?", by);
  }

  /**
   * The name a process holds requests by: its process id and this machine (its host name and pid
   * namespace, so that another container or computer sharing the profile is not taken for this
   * one), then a random part (a process id alone is reused).
   */
  public static String holder() {
    return ProcessHandle.current().pid() + "@" + MACHINE + ":" + java.util.UUID.randomUUID();
  }

  /** This machine as {@link #holder} names it: host name and pid namespace, without : or @. */
  static final String MACHINE = machine();

  private static String machine() {
    String host = System.getenv().getOrDefault("HOSTNAME", "");
    String namespace = "";
    try {
      host = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname"));
      namespace =
          java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/ns/pid"))
              .toString()
              .replaceAll("[^0-9]", "");
    } catch (java.io.IOException | RuntimeException elsewhere) {
      // not Linux: the host name alone
    }
    return (host.strip() + "/" + namespace).replaceAll("[:@\\s]", "_");
  }

  /**
   * Forgets what nobody will end: requests whose link expired over a minute ago and that no process
   * holds, and requests held by a process of this machine (as {@link #holder} names it) that no
   * longer runs (it was killed, and its watches with it). Returns how many went.
   */
  public int sweep(long nowMs) {
    int gone =
        update("DELETE FROM watches WHERE held_by IS NULL AND expires_at_ms < ?", nowMs - 60_000);
    String here = "@" + MACHINE + ":";
    for (String state : List.of("claimed", "open", "stop", "refused")) {
      for (Request r : inState(state)) {
        String by = r.heldBy().orElse("");
        int at = by.indexOf(here);
        if (at > 0 && by.substring(0, at).chars().allMatch(Character::isDigit)) {
          long pid = Long.parseLong(by.substring(0, at));
          if (ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true)) {
            gone += update("DELETE FROM watches WHERE id = ?", r.id());
          }
        }
      }
    }
    return gone;
  }

  private int update(String sql, Object... args) {
    try {
      return domain.transaction(
          c -> {
            try (PreparedStatement s = c.prepareStatement(sql)) {
              for (int i = 0; i < args.length; i++) {
                s.setObject(i + 1, args[i]);
              }
              return s.executeUpdate();
            }
          });
    } catch (SQLException e) {
      throw new IllegalStateException("the watch requests: " + e.getMessage(), e);
    }
  }

  private List<Request> select(String sql, String arg) {
    try {
      return domain.transaction(
          c -> {
            try (PreparedStatement s = c.prepareStatement(sql)) {
              s.setString(1, arg);
              List<Request> rows = new ArrayList<>();
              try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                  rows.add(
                      new Request(
                          r.getString("id"),
                          r.getString("browser_session"),
                          HexFormat.of().parseHex(r.getString("token_hash")),
                          r.getLong("expires_at_ms"),
                          r.getString("state"),
                          Optional.ofNullable(r.getString("held_by")),
                          Optional.ofNullable(r.getString("place")),
                          Optional.ofNullable(r.getString("reason"))));
                }
              }
              return rows;
            }
          });
    } catch (SQLException e) {
      throw new IllegalStateException("the watch requests: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    domain.close();
  }
}
