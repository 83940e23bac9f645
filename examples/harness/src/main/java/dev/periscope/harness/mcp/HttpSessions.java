package dev.periscope.harness.mcp;

import dev.periscope.harness.host.Host;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP sessions an HTTP server holds, each one agent session: named by the client (and so
 * resumable in a later connection, as {@code --session} is on standard input and output) or a new
 * one of its own. At most {@code max} hold a browser at once (a slot each): when every slot is
 * taken, a new session, or a call in a parked one, takes the slot of the session used least
 * recently that has no call running, which is parked: its agent session ends with a checkpoint,
 * releasing its browser, while its MCP session stays valid, and its next call takes a slot again
 * and restores the browser session from that checkpoint, saying so once. Only when every slot has a
 * call running is a session refused. One idle longer than {@code idle} ends, as does one the client
 * deletes, and the server's stop ends them all. Ending one waits for its calls (they are cancelled
 * first), then ends its agent session, which releases its browser session with a checkpoint; a
 * later request in it is answered 404, as the protocol asks, and the client starts a new session.
 */
final class HttpSessions implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpSessions.class);

  /** A name a client may give its session: what {@code --session} takes, and no more. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  /** The prefix of the agent sessions of unnamed MCP sessions, which no client may name. */
  static final String UNNAMED = "mcp-";

  private static final String TAKEN_OVER = "its client started a new session under the same name";

  /** One live MCP session. */
  static final class Session {
    final String mcpId;
    final String agentSession;
    final String name;
    final McpStreamableServerSession sdk;
    final AtomicLong lastActive = new AtomicLong(System.nanoTime());

    /** Calls hold it for reading while they run; ending takes it for writing. */
    final ReentrantReadWriteLock calls = new ReentrantReadWriteLock();

    final AtomicBoolean ended = new AtomicBoolean();

    /** Whether it holds a slot: false while parked (and once ended). Guarded by the sessions. */
    boolean holdsSlot = true;

    /** Whether its next call is told that its browser was released while it was parked. */
    boolean parkedSinceLastCall;

    /** Completes once ending has finished: its agent session's checkpoint is written. */
    final CompletableFuture<Void> finished = new CompletableFuture<>();

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
   * The slot of an {@code initialize} request being handled: taken, or (when every slot is in use
   * and a live session has the same name) to be inherited from the session it takes over. It
   * becomes the new session's, or is given back when the request opened none.
   */
  final class Admission implements AutoCloseable {
    final String name;
    private boolean inheriting;
    private boolean used;

    private Admission(String name, boolean inheriting) {
      this.name = name;
      this.inheriting = inheriting;
    }

    @Override
    public void close() {
      if (!used && !inheriting) {
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

  /** Guards {@link #closed} against a session opening while the server stops. */
  private final Object lifecycle = new Object();

  private boolean closed;

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
   * Admits an {@code initialize} request naming {@code name} (null: a new agent session of its
   * own): a slot is taken for it, or, when all are in use and a live session has that name, the
   * request will take that session's over.
   *
   * @throws Refusal when the name is not one, every slot is taken, or the server is stopping
   */
  Admission admit(String name) {
    if (name != null && (!NAME.matcher(name).matches() || name.startsWith(UNNAMED))) {
      throw new Refusal(
          400,
          "the session name must be 1 to 64 letters, digits, '.', '_' or '-', starting with a"
              + " letter or digit, and not with '"
              + UNNAMED
              + "'");
    }
    synchronized (lifecycle) {
      if (closed) {
        throw new Refusal(503, "the server is stopping");
      }
    }
    boolean inheriting = false;
    if (!slots.tryAcquire()) {
      if (name == null || byName.get(name) == null) {
        if (!parkOne(null)) {
          throw new Refusal(503, everySlotBusy());
        }
      } else {
        inheriting = true;
      }
    }
    Admission a = new Admission(name, inheriting);
    INITIALIZING.set(a);
    return a;
  }

  /**
   * The SDK opened {@code sdk} for the {@code initialize} request this thread handles: it becomes a
   * live session with its admission's slot and name. A live session of that name ends first (its
   * client has come back in a new connection), without ending the agent session, which goes on in
   * this one once the old one's calls are over.
   */
  void opened(McpStreamableServerSession sdk) {
    Admission a = INITIALIZING.get();
    if (a == null) {
      throw new IllegalStateException("a session was opened outside an initialize request");
    }
    Session previous = a.name == null ? null : byName.get(a.name);
    if (previous != null) {
      boolean heldSlot;
      synchronized (this) {
        heldSlot = previous.holdsSlot;
      }
      boolean ours = end(previous, TAKEN_OVER, false, !a.inheriting);
      await(previous);
      // Its slot is inherited only if it held one (a parked session holds none).
      if (a.inheriting && !(ours && heldSlot) && !slots.tryAcquire() && !parkOne(null)) {
        throw new IllegalStateException(everySlotBusy());
      }
    } else if (a.inheriting && !slots.tryAcquire() && !parkOne(null)) {
      throw new IllegalStateException(everySlotBusy());
    }
    a.inheriting = false;
    String agentSession = a.name != null ? a.name : UNNAMED + UUID.randomUUID();
    Session s = new Session(sdk.getId(), agentSession, a.name, sdk);
    synchronized (lifecycle) {
      if (closed) {
        throw new IllegalStateException("the server is stopping");
      }
      a.used = true;
      live.put(s.mcpId, s);
      if (a.name != null) {
        byName.put(a.name, s);
      }
    }
    LOG.info(
        "MCP session opened for agent session {} ({} of at most {})",
        agentSession,
        live.size(),
        max);
  }

  private String everySlotBusy() {
    return "this server runs at most "
        + max
        + " browsers at once (--max-sessions "
        + max
        + "), and every one has a call running; try again when one ends";
  }

  /**
   * Frees a slot for someone else by parking the live session, other than {@code keep}, used least
   * recently among those that hold a slot and have no call running: its agent session ends with a
   * checkpoint (its browser stops) and its slot becomes the caller's. False when there is none.
   */
  private boolean parkOne(Session keep) {
    List<Session> idleFirst =
        live.values().stream()
            .filter(s -> s != keep)
            .sorted(java.util.Comparator.comparingLong(s -> s.lastActive.get()))
            .toList();
    for (Session s : idleFirst) {
      // Only a session with no call running: its write lock is free exactly then.
      if (!s.calls.writeLock().tryLock()) {
        continue;
      }
      try {
        synchronized (this) {
          if (s.ended.get() || !s.holdsSlot) {
            continue;
          }
          s.holdsSlot = false;
          s.parkedSinceLastCall = true;
        }
        try {
          host.endSession(s.agentSession);
        } catch (RuntimeException e) {
          LOG.warn(
              "parking agent session {}: ending its browser session failed: {}",
              s.agentSession,
              Host.rootMessage(e));
        }
        LOG.info(
            "agent session {} parked (its browser released with a checkpoint) for a session that"
                + " needed its slot; its MCP session stays open",
            s.agentSession);
        return true;
      } finally {
        s.calls.writeLock().unlock();
      }
    }
    return false;
  }

  /** The live session {@code mcpId}; null if there is none (any more). */
  Session find(String mcpId) {
    return mcpId == null ? null : live.get(mcpId);
  }

  /**
   * Begins a call in live MCP session {@code mcpId}: the session does not end before the call is
   * over (an ending cancels it, then waits).
   *
   * @throws IllegalStateException when the session has ended
   */
  ToolServer.Call begin(String mcpId) {
    Session s = find(mcpId);
    if (s != null) {
      s.calls.readLock().lock();
      if (!s.ended.get()) {
        s.touch();
        String notice;
        try {
          notice = unpark(s);
        } catch (IllegalStateException busy) {
          s.calls.readLock().unlock();
          throw busy;
        }
        return new ToolServer.Call() {
          @Override
          public String agentSession() {
            return s.agentSession;
          }

          @Override
          public String notice() {
            return notice;
          }

          @Override
          public void close() {
            s.touch();
            s.calls.readLock().unlock();
          }
        };
      }
      s.calls.readLock().unlock();
    }
    throw new IllegalStateException(
        "this MCP session has ended; the call was not made (start a new session)");
  }

  /**
   * A parked session about to make a call takes a slot again (parking another idle session when
   * none is free); what its call's result is to say of it, once, or null.
   *
   * @throws IllegalStateException when every slot has a call running
   */
  private String unpark(Session s) {
    // One call of the session at a time takes its slot back.
    synchronized (s) {
      return unparkHeld(s);
    }
  }

  private String unparkHeld(Session s) {
    synchronized (this) {
      if (s.holdsSlot) {
        return null;
      }
    }
    if (!slots.tryAcquire() && !parkOne(s)) {
      throw new IllegalStateException(everySlotBusy() + "; the call was not made");
    }
    synchronized (this) {
      s.holdsSlot = true;
      if (!s.parkedSinceLastCall) {
        return null;
      }
      s.parkedSinceLastCall = false;
    }
    return "While this session was idle its browser was released to make room for another"
        + " session (--max-sessions "
        + max
        + "); it is restored from its last checkpoint, still logged in, with no page open:"
        + " open the page again (refs of earlier observations are stale).";
  }

  int size() {
    return live.size();
  }

  /** Ends session {@code mcpId} at its client's request; false if there was none. */
  boolean delete(String mcpId) {
    Session s = find(mcpId);
    if (s == null) {
      return false;
    }
    end(s, "its client ended it", true, true);
    await(s);
    return true;
  }

  private void sweep() {
    long now = System.nanoTime();
    for (Session s : List.copyOf(live.values())) {
      if (s.calls.getReadLockCount() == 0 && now - s.lastActive.get() > idle.toNanos()) {
        end(s, "idle for " + Durations.format(idle), true, true);
      }
    }
  }

  /**
   * Ends one session, once (false if it was already ending): no new call starts, the running ones
   * are cancelled and waited for, its SDK session closes, and (unless its client goes on under the
   * same name in a new one) its agent session ends with a checkpoint; then its name and slot are
   * free.
   */
  private boolean end(Session s, String why, boolean endAgentSession, boolean releaseSlot) {
    if (!s.ended.compareAndSet(false, true)) {
      return false;
    }
    live.remove(s.mcpId, s);
    tools.cancelAll(s.mcpId);
    boolean locked = false;
    try {
      locked = s.calls.writeLock().tryLock(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      try {
        s.sdk.closeGracefully().block(Duration.ofSeconds(2));
      } catch (RuntimeException e) {
        LOG.debug("closing an MCP session", e);
      }
      if (endAgentSession) {
        host.endSession(s.agentSession);
      }
      LOG.info(
          "MCP session of agent session {} ended: {}{}",
          s.agentSession,
          why,
          endAgentSession ? "" : " (the agent session goes on)");
    } catch (RuntimeException e) {
      LOG.warn(
          "MCP session of agent session {} ended ({}), but ending its agent session failed: {}",
          s.agentSession,
          why,
          Host.rootMessage(e));
    } finally {
      if (s.name != null) {
        byName.remove(s.name, s);
      }
      boolean held;
      synchronized (this) {
        held = s.holdsSlot;
        s.holdsSlot = false;
      }
      if (releaseSlot && held) {
        slots.release();
      }
      if (locked) {
        s.calls.writeLock().unlock();
      }
      s.finished.complete(null);
    }
    return true;
  }

  private static void await(Session s) {
    try {
      s.finished.get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
      LOG.warn("the end of agent session {} took too long", s.agentSession);
    }
  }

  /**
   * Ends every session, each with its checkpoint, several at a time and within {@code deadline}; no
   * new one opens.
   */
  void close(Duration deadline) {
    List<Session> open;
    synchronized (lifecycle) {
      closed = true;
      open = List.copyOf(live.values());
    }
    sweeper.shutdownNow();
    if (open.isEmpty()) {
      return;
    }
    ExecutorService ending =
        Executors.newFixedThreadPool(
            Math.min(4, open.size()),
            r -> {
              Thread t = new Thread(r, "mcp-ending");
              t.setDaemon(true);
              return t;
            });
    for (Session s : open) {
      ending.execute(() -> end(s, "the server is stopping", true, true));
    }
    ending.shutdown();
    try {
      if (!ending.awaitTermination(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "not every session ended within {}; the host's stop ends the rest",
            Durations.format(deadline));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(15));
  }
}
