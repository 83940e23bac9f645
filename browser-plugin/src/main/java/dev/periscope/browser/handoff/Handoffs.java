package dev.periscope.browser.handoff;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.HandoffOutcome.Ending;
import dev.periscope.api.browser.spi.LiveViewEnvironment;
import dev.periscope.api.host.ApprovalDecision;
import dev.periscope.api.host.ApprovalRequest;
import dev.periscope.api.host.ApprovalService;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handoff desk: opens a page's live view ({@link LiveViewServer}), tells a person through the
 * host's approval service, where the host shows its questions (the harness: on the terminal, told
 * and not asked), and waits for the person's ending. The link, with its one-time token, goes only
 * there: never to the model, never to a log. The service is asked while the link already works; a
 * deny ends the handoff ({@link Ending#DECLINED}) unless the person has opened the view by then,
 * and no approval service at all declines at once.
 */
public final class Handoffs implements AutoCloseable {
  /** The tool name the approval service is asked with. */
  public static final String TOOL = "browser_handoff";

  private static final Logger LOG = LoggerFactory.getLogger(Handoffs.class);
  private static final AtomicInteger ASKS = new AtomicInteger();

  private final LiveViewServer server;
  private final Optional<ApprovalService> approval;

  public Handoffs(LiveViewServer server, Optional<ApprovalService> approval) {
    this.server = server;
    this.approval = approval;
  }

  /** The server its live views are on, which watches share. */
  public LiveViewServer server() {
    return server;
  }

  /** Whether anyone can be asked to take a page. */
  public boolean available() {
    return approval.isPresent();
  }

  /**
   * A live view of {@code environment}, showing {@code message}: close it once the handoff ends.
   */
  public LiveView open(LiveViewEnvironment environment, String message) {
    return server.open(environment, message);
  }

  /**
   * Tells the person and waits for the ending, at most {@code timeoutMs}, or until {@code gone}
   * says the browser went ({@link Ending#CANCELLED}); {@code origin} is the page's, for the host's
   * question.
   */
  public Ending await(
      LiveView view,
      String message,
      String origin,
      long timeoutMs,
      Cancellation cancellation,
      java.util.function.BooleanSupplier gone) {
    if (approval.isEmpty()) {
      return Ending.DECLINED;
    }
    Cancellation asking = new Cancellation();
    String reason =
        "Live view (works once): "
            + server.link(view)
            + "\nThe agent hands you a page of "
            + origin
            + " and asks: \""
            + oneLine(message)
            + "\"\nOpen the link in a browser to take over; press Done there when you have"
            + " finished, or Give up.";
    Thread ask =
        new Thread(
            () -> {
              ApprovalDecision d;
              try {
                d =
                    approval
                        .get()
                        .decide(new ApprovalRequest(TOOL, null, origin, null, reason), asking);
              } catch (RuntimeException e) {
                // Never the exception's text: it may quote the request, link and all.
                LOG.warn(
                    "the host's approval service failed on a handoff: {}", e.getClass().getName());
                d = ApprovalDecision.DENY;
              }
              if (d == ApprovalDecision.DENY && !asking.isCancelled() && !view.redeemed()) {
                view.end(Ending.DECLINED);
              }
            },
            "periscope-handoff-ask-" + ASKS.incrementAndGet());
    ask.setDaemon(true);
    ask.start();
    try {
      return view.await(timeoutMs, cancellation, gone);
    } finally {
      asking.cancel();
      try {
        // The host's question heeds the cancellation; this bounds the wait for it anyway.
        ask.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The model's message on one short line, so it cannot pose as lines of the question (a run of
   * spaces would wrap like a line break); the view shows it whole.
   */
  static String oneLine(String message) {
    String line = message.replaceAll("[\\s\\p{Z}]+", " ").strip();
    return line.length() <= SHOWN_CHARS ? line : line.substring(0, SHOWN_CHARS) + "…";
  }

  private static final int SHOWN_CHARS = 160;

  @Override
  public void close() {
    server.close();
  }
}
