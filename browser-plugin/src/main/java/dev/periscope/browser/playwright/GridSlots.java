package dev.periscope.browser.playwright;

import dev.periscope.api.Cancellation;
import java.util.concurrent.TimeUnit;

/**
 * The Grid's free slots as this provider may use them: a browser is asked for only when the Grid
 * has a free slot that no other browser this provider is starting will take, so a request never
 * waits in the Grid's queue past the call that made it (the Grid would give it the next free slot
 * after the call gave up, and hold that browser for no one). Another client of the same Grid can
 * still take the slot first; then the launch's own bound ends the wait.
 */
final class GridSlots {
  private int launching;

  /** How many counted launches have ended: a status asked for before one ended is asked again. */
  private long ended;

  /**
   * Waits until the Grid has a slot for one more browser, at most its queue timeout; the caller
   * then starts it and says {@link #launched()} when done, whatever the outcome.
   *
   * @return true (a launch is counted)
   * @throws Lane.GridCapacityException when none frees in time
   * @throws Lane.GridUnreachableException when the Grid does not answer its status
   */
  boolean await(GridSettings g, Cancellation cancellation) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(g.queueTimeoutMs());
    while (true) {
      cancellation.throwIfCancelled();
      long endedBefore;
      synchronized (this) {
        endedBefore = ended;
      }
      GridStatus status;
      try {
        status = GridClient.status(g, 10_000);
      } catch (java.io.IOException e) {
        throw new Lane.GridUnreachableException(e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.util.concurrent.CancellationException("interrupted waiting for the Grid");
      }
      synchronized (this) {
        if (ended != endedBefore) {
          // A launch ended while the Grid was asked: its browser may hold a slot the answer shows
          // free, and it no longer counts in launching.
          continue;
        }
        if (status.freeSlots() > launching) {
          launching++;
          return true;
        }
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new Lane.GridCapacityException(status);
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.util.concurrent.CancellationException("interrupted waiting for the Grid");
      }
    }
  }

  /** A browser counted by {@link #await} has started, or failed to. */
  synchronized void launched() {
    launching--;
    ended++;
  }
}
