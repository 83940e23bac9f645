package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import java.util.ArrayDeque;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One holder at a time, in strict arrival order. A waiter that is cancelled, or whose time runs
 * out, leaves the line without disturbing the others: the turn passes straight from one holder to
 * the next in line.
 */
public final class FifoGate {
  private final ArrayDeque<CompletableFuture<Void>> line = new ArrayDeque<>();
  private boolean held;

  /**
   * Waits for this caller's turn. Throws {@link CancellationException} if the caller cancels first.
   */
  public void enter(Cancellation cancellation) {
    CompletableFuture<Void> turn = join();
    if (turn == null) {
      return;
    }
    try (Cancellation.Registration leaving = cancellation.onCancel(() -> leaveLine(turn))) {
      turn.get();
    } catch (CancellationException e) {
      throw new CancellationException("cancelled while waiting for its turn");
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (!leaveLine(turn)) {
        exit();
      }
      throw new CancellationException("interrupted while waiting for its turn");
    }
  }

  /** Waits up to {@code timeoutMs} for this caller's turn; false when the time ran out. */
  public boolean tryEnter(long timeoutMs) {
    CompletableFuture<Void> turn = join();
    if (turn == null) {
      return true;
    }
    try {
      turn.get(timeoutMs, TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      // Handed the turn just as the time ran out: it is ours, keep it.
      return !leaveLine(turn);
    } catch (ExecutionException | CancellationException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (!leaveLine(turn)) {
        exit();
      }
      return false;
    }
  }

  /** Takes the gate if it is free and nobody waits; never waits. */
  public synchronized boolean tryEnterNow() {
    if (held) {
      return false;
    }
    held = true;
    return true;
  }

  /**
   * Takes a place in line now for work that another thread does later: the future completes when
   * the turn is that work's (at once if the gate was free), and the work then calls {@link #exit}.
   */
  public CompletableFuture<Void> reserve() {
    CompletableFuture<Void> turn = join();
    return turn == null ? CompletableFuture.completedFuture(null) : turn;
  }

  /** Passes the turn to the next in line, or frees the gate. */
  public synchronized void exit() {
    CompletableFuture<Void> next = line.pollFirst();
    if (next == null) {
      held = false;
    } else {
      next.complete(null);
    }
  }

  /** Null when the gate was free and is now ours; else this caller's place in line. */
  private synchronized CompletableFuture<Void> join() {
    if (!held) {
      held = true;
      return null;
    }
    CompletableFuture<Void> turn = new CompletableFuture<>();
    line.addLast(turn);
    return turn;
  }

  /** Leaves the line if still in it (true); false when the turn was already handed over. */
  private synchronized boolean leaveLine(CompletableFuture<Void> turn) {
    if (line.remove(turn)) {
      turn.cancel(false);
      return true;
    }
    return false;
  }
}
