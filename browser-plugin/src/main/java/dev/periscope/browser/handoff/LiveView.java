package dev.periscope.browser.handoff;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.HandoffOutcome.Ending;
import dev.periscope.api.browser.spi.LiveViewEnvironment;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One live view: its one-time link, the cookie the link is traded for, the newest frame of the
 * page, and how it ends. A handoff's view also takes the person's input on its way to the page; a
 * watch ({@link Kind#WATCH}) is the same view read-only: it plays nothing, and only its closing
 * ends it. Thread-safe.
 */
public final class LiveView implements AutoCloseable {
  private static final SecureRandom RANDOM = new SecureRandom();

  /** What a view is for: a handoff (input, Done, Give up) or a watch (only the page's frames). */
  public enum Kind {
    HANDOFF,
    WATCH;

    /** Its paths' first segment and its cookie's name. */
    String path() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  final String id = HexFormat.of().formatHex(bytes(16));
  final Kind kind;
  private final String token;
  private final byte[] tokenHash;
  private final long expiresAtMs;
  private final byte[] cookie = Base64.getUrlEncoder().withoutPadding().encode(bytes(32));
  private final AtomicBoolean tokenUsed = new AtomicBoolean();
  private final LiveViewEnvironment environment;
  final String message;
  private final CompletableFuture<Ending> ended = new CompletableFuture<>();
  private final Runnable onClose;

  private LiveViewEnvironment.Frame frame;
  private long frameSeq;

  /** A handoff's view, with a token of its own whose link never expires by itself. */
  LiveView(LiveViewEnvironment environment, String message, Runnable onClose) {
    this.kind = Kind.HANDOFF;
    this.environment = environment;
    this.message = message;
    this.onClose = onClose;
    this.token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes(32));
    this.tokenHash = tokenHash(token);
    this.expiresAtMs = Long.MAX_VALUE;
  }

  /**
   * A watch: its token is known here only by its hash ({@link #tokenHash}), and its link works
   * until {@code expiresAtMs} (the epoch's milliseconds).
   */
  LiveView(String message, byte[] tokenHash, long expiresAtMs, Runnable onClose) {
    this.kind = Kind.WATCH;
    this.environment = null;
    this.message = message;
    this.onClose = onClose;
    this.token = null;
    this.tokenHash = tokenHash.clone();
    this.expiresAtMs = expiresAtMs;
  }

  private static byte[] bytes(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }

  /** A new link token: 256 random bits, URL-safe. */
  public static String newToken() {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes(32));
  }

  /** The SHA-256 of a token, what a watch keeps of it. */
  public static byte[] tokenHash(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  String token() {
    if (token == null) {
      throw new IllegalStateException("a watch's token is known only to whoever asked for it");
    }
    return token;
  }

  /**
   * The link's token, once: true only for the first request that presents it, before the link
   * expires.
   */
  boolean redeem(String given) {
    return given != null
        && !expired()
        && MessageDigest.isEqual(tokenHash, tokenHash(given))
        && tokenUsed.compareAndSet(false, true);
  }

  /** Whether the link's time is over (a redeemed link stays redeemed). */
  boolean expired() {
    return System.currentTimeMillis() >= expiresAtMs;
  }

  /** Whether the link's token was presented already (a second use is refused, not "wrong"). */
  public boolean redeemed() {
    return tokenUsed.get();
  }

  String cookie() {
    return new String(cookie, StandardCharsets.US_ASCII);
  }

  boolean holds(String given) {
    return given != null
        && MessageDigest.isEqual(cookie, given.getBytes(StandardCharsets.US_ASCII));
  }

  /** A new frame of the page, from the provider's threads. */
  public synchronized void frame(LiveViewEnvironment.Frame f) {
    frame = f;
    frameSeq++;
    notifyAll();
  }

  /** A frame with its number in the view. */
  record Numbered(long seq, LiveViewEnvironment.Frame frame) {}

  /**
   * The newest frame, waiting up to {@code waitMs} for one newer than {@code after}; null when none
   * came or the view ended.
   */
  synchronized Numbered frameAfter(long after, long waitMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
    while (frameSeq <= after && !ended.isDone()) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        return null;
      }
      wait(left);
    }
    return frameSeq > after && frame != null ? new Numbered(frameSeq, frame) : null;
  }

  /**
   * Plays one of the person's events, unless the handoff ended: an ending waits for an event being
   * played, so none reaches the page after it.
   */
  void play(LiveViewEnvironment.PersonInput input) {
    if (kind == Kind.WATCH) {
      throw new IllegalStateException("a watch plays no input");
    }
    synchronized (playing) {
      if (!ended.isDone()) {
        environment.play(input);
      }
    }
  }

  private final Object playing = new Object();

  /** Ends the handoff; the first ending counts. Waits for an event being played to finish. */
  public void end(Ending ending) {
    if (ended.complete(ending)) {
      synchronized (this) {
        notifyAll();
      }
    }
    synchronized (playing) {
      // nothing: an event played now has finished
    }
  }

  /** Whether the view ended (its handoff, or the watch was closed). */
  public boolean isEnded() {
    return ended.isDone();
  }

  /**
   * Waits for the person, at most {@code timeoutMs}: their ending, {@link Ending#TIMED_OUT}, or
   * {@link Ending#CANCELLED} when the agent's call is cancelled or {@code gone} turns true (the
   * browser went: looked at every quarter second).
   */
  public Ending await(
      long timeoutMs, Cancellation cancellation, java.util.function.BooleanSupplier gone) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    try (Cancellation.Registration r = cancellation.onCancel(() -> end(Ending.CANCELLED))) {
      while (true) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          end(Ending.TIMED_OUT);
          return ended.join();
        }
        try {
          return ended.get(Math.min(left, GONE_CHECK_MS), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          if (gone.getAsBoolean()) {
            end(Ending.CANCELLED);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      end(Ending.CANCELLED);
      return ended.join();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  private static final long GONE_CHECK_MS = 250;

  /** The view goes: its link and cookie stop working, a waiting frame request returns. */
  @Override
  public void close() {
    end(Ending.CANCELLED);
    onClose.run();
  }
}
