package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.Transition;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records each session ({@link RecordingSettings}): after each action, on the environment's queue,
 * only the frame is taken (the provider's cheap viewport JPEG, masked); halving it, the attachment
 * and the rows are written on this recorder's own thread, in order, so the action does not wait for
 * them. Everything page-derived is redacted here as tool results are, before it is kept. Off, it
 * costs an action one field read. A recording that cannot be written only warns: it never changes
 * an action's result.
 */
final class SessionRecorder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SessionRecorder.class);
  private static final com.google.gson.Gson JSON = new com.google.gson.Gson();

  private final RecordingSettings settings;
  private final RecordingStore store;
  private final Redactions redactions;
  private final ExecutorService writer;

  SessionRecorder(RecordingSettings settings, RecordingStore store, Redactions redactions) {
    this.settings = settings;
    this.store = store;
    this.redactions = redactions;
    this.writer =
        settings.mode() == RecordingSettings.Mode.OFF
            ? null
            : Executors.newSingleThreadExecutor(
                r -> {
                  Thread t = new Thread(r, "periscope-recorder");
                  t.setDaemon(true);
                  return t;
                });
  }

  boolean on() {
    return writer != null;
  }

  /**
   * After transition {@code t} of {@code environment}'s session: takes the frame (on the queue;
   * caller holds it) and hands the rest to the writer. An environment that was aborted gives none.
   */
  void after(Environment environment, Transition t, Observation after, long frameTimeoutMs) {
    if (!on()) {
      return;
    }
    byte[] shot = null;
    if (!environment.aborted() && t.outcome() != Transition.Outcome.UNKNOWN) {
      try {
        shot =
            environment.step(
                "the recording's frame",
                frameTimeoutMs,
                () -> environment.delegate().recordingFrame());
      } catch (RuntimeException e) {
        LOG.debug("no frame of transition {} for the recording: {}", t.id(), e.getMessage());
      }
    }
    BrowserSessionId session = environment.sessionId;
    RecordingStore.Frame frame =
        new RecordingStore.Frame(
            session,
            t.id(),
            t.startedAt(),
            t.generation(),
            redactions.text(session, JSON.toJson(t.action())),
            t.outcome().name().toLowerCase(Locale.ROOT),
            t.error() == null ? null : t.error().name(),
            t.metrics().durationMs(),
            after == null ? redactions.text(session, environment.lastUrl()) : after.url(),
            after == null ? null : after.title(),
            after == null ? null : after.text(),
            after == null ? List.of() : after.pageEvents(),
            shot);
    submit("record transition " + t.id(), () -> store.add(halved(frame), settings.budgetBytes()));
  }

  /** An environment of the session closed: {@code on-failure} drops a recording with no failure. */
  void environmentClosed(BrowserSessionId session) {
    if (settings.mode() == RecordingSettings.Mode.ON_FAILURE) {
      submit("end the recording of " + session, () -> store.dropUnlessFailed(session));
    }
  }

  /** Deletes the session's recording with its checkpoint; returns once it is gone. */
  void delete(BrowserSessionId session) {
    if (!on()) {
      store.delete(session);
      return;
    }
    try {
      writer.submit(() -> store.delete(session)).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      LOG.warn("the recording of browser session {} was not deleted: {}", session, e.toString());
    }
  }

  private void submit(String what, Runnable work) {
    try {
      writer.execute(
          () -> {
            try {
              work.run();
            } catch (RuntimeException e) {
              LOG.warn("could not {}: {}", what, e.getMessage());
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      LOG.debug("the recorder is closed: did not {}", what);
    }
  }

  /** The frame with its image at half its size (a JPEG still), or as it was if it cannot be. */
  private static RecordingStore.Frame halved(RecordingStore.Frame f) {
    if (f.image() == null) {
      return f;
    }
    try {
      BufferedImage image = ImageIO.read(new ByteArrayInputStream(f.image()));
      if (image == null || image.getWidth() < 2 || image.getHeight() < 2) {
        return f;
      }
      BufferedImage half =
          new BufferedImage(
              image.getWidth() / 2, image.getHeight() / 2, BufferedImage.TYPE_INT_RGB);
      Graphics2D g = half.createGraphics();
      try {
        g.setRenderingHint(
            RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        g.drawImage(image, 0, 0, half.getWidth(), half.getHeight(), null);
      } finally {
        g.dispose();
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ImageIO.write(half, "jpg", out);
      return new RecordingStore.Frame(
          f.sessionId(),
          f.transitionId(),
          f.at(),
          f.generation(),
          f.action(),
          f.outcome(),
          f.errorCode(),
          f.durationMs(),
          f.url(),
          f.title(),
          f.observation(),
          f.pageEvents(),
          out.toByteArray());
    } catch (IOException | RuntimeException e) {
      return f;
    }
  }

  /** Waits (bounded) for the frames already taken to be written, then stops the writer. */
  @Override
  public void close() {
    if (writer == null) {
      return;
    }
    writer.shutdown();
    try {
      writer.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits for every write submitted so far; for tests and operators that read right after. */
  void flush() {
    if (on()) {
      try {
        writer.submit(() -> {}).get(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        LOG.warn("the recorder did not catch up: {}", e.toString());
      }
    }
  }
}
