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
 * One handoff's live view: its one-time link, the cookie the link is traded for, the newest frame
 * of the page, the person's input on its way to the page, and how the handoff ends. Thread-safe.
 */
public final class LiveView implements AutoCloseable {
  private static final SecureRandom RANDOM = new SecureRandom();

  final String id = HexFormat.of().formatHex(bytes(16));
  private final byte[] token = Base64.getUrlEncoder().withoutPadding().encode(bytes(32));
  private final byte[] cookie = Base64.getUrlEncoder().withoutPadding().encode(bytes(32));
  private final AtomicBoolean tokenUsed = new AtomicBoolean();
  private final LiveViewEnvironment environment;
  final String message;
  private final CompletableFuture<Ending> ended = new CompletableFuture<>();
  private final Runnable onClose;

  private LiveViewEnvironment.Frame frame;
  private long frameSeq;

  LiveView(LiveViewEnvironment environment, String message, Runnable onClose) {
    this.environment = environment;
    this.message = message;
    this.onClose = onClose;
  }

  private static byte[] bytes(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }

  String token() {
    return new String(token, StandardCharsets.US_ASCII);
  }

  /** The link's token, once: true only for the first request that presents it. */
  boolean redeem(String given) {
    return given != null
        && MessageDigest.isEqual(token, given.getBytes(StandardCharsets.US_ASCII))
        && tokenUsed.compareAndSet(false, true);
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

  boolean isEnded() {
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
