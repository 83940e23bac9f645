package dev.periscope.harness.mcp;

import dev.periscope.harness.host.Host;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP sessions an HTTP server holds, each one agent session: named by the client (and so
 * resumable in a later connection, as {@code --session} is on standard input and output) or a new
 * one of its own. At most {@code max} live at once; one idle longer than {@code idle} ends, as does
 * one the client deletes, and the server's stop ends them all. Ending one ends its agent session,
 * which releases its browser session with a checkpoint; a later request in it is answered 404, as
 * the protocol asks, and the client starts a new session.
 */
final class HttpSessions implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpSessions.class);

  /** A name a client may give its session: what {@code --session} takes, and no more. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  /** One live MCP session. */
  static final class Session {
    final String mcpId;
    final String agentSession;
    final String name;
    final McpStreamableServerSession sdk;
    final AtomicLong lastActive = new AtomicLong(System.nanoTime());

    /** Its HTTP requests being handled now. */
    final AtomicInteger handling = new AtomicInteger();

    final AtomicBoolean ended = new AtomicBoolean();

    Session(String mcpId, String agentSession, String name, McpStreamableServerSession sdk) {
      this.mcpId = mcpId;
      this.agentSession = agentSession;
      this.name = name;
      this.sdk = sdk;
    }

    void touch() {
      lastActive.set(System.nanoTime());
    }
  }

  /** A refusal to start a session, with the HTTP status and the reason the client is told. */
  static final class Refusal extends RuntimeException {
    final int status;

    Refusal(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }

  /**
   * A slot taken for an {@code initialize} request being handled; it becomes the session's, or is
   * given back when the request opened none.
   */
  final class Admission implements AutoCloseable {
    final String name;
    private boolean used;

    private Admission(String name) {
      this.name = name;
    }

    @Override
    public void close() {
      if (!used) {
        slots.release();
      }
      INITIALIZING.remove();
    }
  }

  /** The admission of the {@code initialize} request this thread is handling. */
  private static final ThreadLocal<Admission> INITIALIZING = new ThreadLocal<>();

  private final Host host;
  private final ToolServer tools;
  private final int max;
  private final Duration idle;
  private final Semaphore slots;
  private final Map<String, Session> live = new ConcurrentHashMap<>();
  private final Map<String, Session> byName = new ConcurrentHashMap<>();
  private final ScheduledExecutorService sweeper;

  HttpSessions(Host host, ToolServer tools, int max, Duration idle) {
    this.host = host;
    this.tools = tools;
    this.max = max;
    this.idle = idle;
    this.slots = new Semaphore(max);
    this.sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "mcp-idle-sessions");
              t.setDaemon(true);
              return t;
            });
    long every = Math.max(200, Math.min(30_000, idle.toMillis() / 4));
    sweeper.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * Takes a slot for an {@code initialize} request naming {@code name} (null: a new agent session
   * of its own). A session live under that name is ended first: its client has come back in a new
   * connection, and the agent session goes on in this one.
   *
   * @throws Refusal when the name is not one, or every slot is taken
   */
  Admission admit(String name) {
    if (name != null) {
      if (!NAME.matcher(name).matches()) {
        throw new Refusal(
            400,
            "the session name must be 1 to 64 letters, digits, '.', '_' or '-', starting with a"
                + " letter or digit");
      }
      Session previous = byName.get(name);
      if (previous != null) {
        end(previous, "its client started a new session under the same name", false);
      }
    }
    if (!slots.tryAcquire()) {
      throw new Refusal(
          503,
          "this server holds at most "
              + max
              + " MCP sessions at once (--max-sessions "
              + max
              + "), and all are in use; end one (DELETE /mcp) or wait until one has been idle for "
              + Durations.format(idle)
              + " (--idle-timeout)");
    }
    Admission a = new Admission(name);
    INITIALIZING.set(a);
    return a;
  }

  /**
   * The SDK opened {@code sdk} for the {@code initialize} request this thread handles: it becomes a
   * live session with its admission's slot and name.
   */
  void opened(McpStreamableServerSession sdk) {
    Admission a = INITIALIZING.get();
    if (a == null) {
      throw new IllegalStateException("a session was opened outside an initialize request");
    }
    a.used = true;
    String agentSession = a.name != null ? a.name : "mcp-" + UUID.randomUUID();
    Session s = new Session(sdk.getId(), agentSession, a.name, sdk);
    live.put(s.mcpId, s);
    if (a.name != null) {
      Session previous = byName.put(a.name, s);
      if (previous != null && previous != s) {
        end(previous, "its client started a new session under the same name", false);
      }
    }
    LOG.info(
        "MCP session opened for agent session {} ({} of at most {})",
        agentSession,
        live.size(),
        max);
  }

  /** The live session {@code mcpId}, marked active now; null if there is none (any more). */
  Session touch(String mcpId) {
    Session s = mcpId == null ? null : live.get(mcpId);
    if (s != null) {
      s.touch();
    }
    return s;
  }

  /** The agent session of live MCP session {@code mcpId}. */
  String agentSession(String mcpId) {
    Session s = mcpId == null ? null : live.get(mcpId);
    if (s == null) {
      throw new IllegalStateException(
          "this MCP session has ended; the call was not made (start a new session)");
    }
    return s.agentSession;
  }

  int size() {
    return live.size();
  }

  /** Ends session {@code mcpId} at its client's request; false if there was none. */
  boolean delete(String mcpId) {
    Session s = mcpId == null ? null : live.get(mcpId);
    if (s == null) {
      return false;
    }
    end(s, "its client ended it", true);
    return true;
  }

  private void sweep() {
    long now = System.nanoTime();
    for (Session s : List.copyOf(live.values())) {
      if (s.handling.get() == 0
          && !tools.running(s.mcpId)
          && now - s.lastActive.get() > idle.toNanos()) {
        try {
          end(s, "idle for " + Durations.format(idle), true);
        } catch (RuntimeException e) {
          LOG.warn("ending idle agent session {} failed: {}", s.agentSession, e.toString());
        }
      }
    }
  }

  /**
   * Ends one session, once: no call of it runs on, its SDK session closes, its slot is free, and
   * (unless its client goes on under the same name in a new one) its agent session ends with a
   * checkpoint.
   */
  private void end(Session s, String why, boolean endAgentSession) {
    if (!s.ended.compareAndSet(false, true)) {
      return;
    }
    live.remove(s.mcpId, s);
    if (s.name != null) {
      byName.remove(s.name, s);
    }
    tools.cancelAll(s.mcpId);
    try {
      s.sdk.closeGracefully().block(Duration.ofSeconds(2));
    } catch (RuntimeException e) {
      LOG.debug("closing an MCP session", e);
    }
    try {
      if (endAgentSession) {
        host.endSession(s.agentSession);
      }
    } finally {
      slots.release();
      LOG.info(
          "MCP session of agent session {} ended: {}{}",
          s.agentSession,
          why,
          endAgentSession ? "" : " (the agent session goes on)");
    }
  }

  /** Ends every session, each with its checkpoint; no new one is opened. */
  @Override
  public void close() {
    sweeper.shutdownNow();
    slots.drainPermits();
    RuntimeException failure = null;
    for (Session s : List.copyOf(live.values())) {
      try {
        end(s, "the server is stopping", true);
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
