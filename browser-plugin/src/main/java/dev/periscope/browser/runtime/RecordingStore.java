package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserSessionId;
import java.time.Instant;
import java.util.List;

/**
 * Where sessions' recordings are kept: a frame after each action (the transition, the observation's
 * text and page events, redacted, and a masked image of the viewport) within a per-session budget.
 * Called on the recorder's own thread, one call at a time.
 */
public interface RecordingStore {
  /**
   * One frame: the transition it follows (its action as the tools show it, redacted, as JSON), the
   * page after it, and the image (a JPEG, or null when none could be taken).
   */
  record Frame(
      BrowserSessionId sessionId,
      String transitionId,
      Instant at,
      int generation,
      String action,
      String outcome,
      String errorCode,
      long durationMs,
      String url,
      String title,
      String observation,
      List<String> pageEvents,
      List<String> files,
      byte[] image) {
    /** This frame with {@code image} (null: none). */
    Frame withImage(byte[] image) {
      return new Frame(
          sessionId,
          transitionId,
          at,
          generation,
          action,
          outcome,
          errorCode,
          durationMs,
          url,
          title,
          observation,
          pageEvents,
          files,
          image);
    }

    /** This frame with {@code events} as its page events. */
    Frame withPageEvents(List<String> events) {
      return new Frame(
          sessionId,
          transitionId,
          at,
          generation,
          action,
          outcome,
          errorCode,
          durationMs,
          url,
          title,
          observation,
          List.copyOf(events),
          files,
          image);
    }
  }

  /**
   * Keeps {@code frame}; then drops the session's oldest frames until it is within {@code
   * budgetBytes}, counting what it dropped.
   */
  void add(Frame frame, long budgetBytes);

  /**
   * Keeps the failure a call of the session ended with, as the model read it (message and failure
   * line, redacted), with the transition the call made, if it made one.
   */
  void failure(BrowserSessionId sessionId, Instant at, String transitionId, String text);

  /**
   * Deletes the session's recording unless one of its actions failed or a fault ended a browser.
   */
  void dropUnlessFailed(BrowserSessionId sessionId);

  /** Deletes the session's recording: its rows first, then its images. */
  void delete(BrowserSessionId sessionId);

  static RecordingStore none() {
    return new RecordingStore() {
      @Override
      public void add(Frame frame, long budgetBytes) {}

      @Override
      public void failure(
          BrowserSessionId sessionId, Instant at, String transitionId, String text) {}

      @Override
      public void dropUnlessFailed(BrowserSessionId sessionId) {}

      @Override
      public void delete(BrowserSessionId sessionId) {}
    };
  }
}
