package dev.periscope.api.browser.spi;

import java.util.Map;
import java.util.function.Consumer;

/**
 * An environment a person can take over for a while (a handoff): its current tab streamed as
 * images, the person's mouse and keyboard played into it, and its state summed up without values
 * before and after. Since host API 2.6.0; an environment without it cannot be handed off ({@code
 * BROWSER_CAPABILITY_UNSUPPORTED}).
 *
 * <p>Threading: {@link #screencast} and {@link #pageState} are called from the runtime's queue for
 * the environment; during a handoff, which holds that queue, {@link #play} is called from the live
 * view's threads, one event at a time, and frames are delivered on the provider's threads.
 */
public interface LiveViewEnvironment extends BrowserEnvironment {
  /**
   * Starts streaming the current tab: each frame, a JPEG image at most {@code maxWidth} by {@code
   * maxHeight} pixels showing the whole viewport, goes to {@code frames} as it is painted. Closing
   * the returned handle stops the stream; it never fails.
   */
  AutoCloseable screencast(int maxWidth, int maxHeight, Consumer<Frame> frames);

  /**
   * Streams the current tab to a watcher, who only looks: like {@link #screencast}, but called from
   * any thread while the agent goes on acting (never from the runtime's queue for the environment,
   * which it does not hold), and nothing about the session changes (no person holds the page, no
   * input is ever played). Each frame is acknowledged without waiting for Chromium's answer, so a
   * watch costs the session's own calls no round trip. Since host API 2.12.0; the default cannot.
   *
   * @throws UnsupportedOperationException when the environment cannot be watched
   */
  default AutoCloseable watch(int maxWidth, int maxHeight, Consumer<Frame> frames) {
    throw new UnsupportedOperationException("this environment cannot be watched");
  }

  /** One frame of a screencast, with the viewport it shows, in CSS pixels. */
  record Frame(byte[] jpeg, int viewportWidth, int viewportHeight) {}

  /** Plays one input event of the person into the current tab. */
  void play(PersonInput input);

  /**
   * The current tab's URL and title, and the state a person may change, as names each with a hash
   * of its value ({@code cookie name domain path}, {@code local origin key}, {@code session origin
   * key}): never a value itself.
   */
  State pageState();

  /** What {@link #pageState} reads. */
  record State(String url, String title, Map<String, String> digests) {
    public State {
      digests = Map.copyOf(digests);
    }
  }

  /**
   * An input event of a person, at CSS-pixel coordinates of the viewport for the mouse.
   *
   * @param kind {@code move}, {@code down}, {@code up}, {@code wheel}, {@code text} (characters
   *     typed, {@code text}) or {@code key} (a named key pressed, {@code key}, as {@code Enter})
   * @param button {@code left}, {@code middle} or {@code right}, for down and up; {@code back} or
   *     {@code forward} (a mouse's buttons 4 and 5) move through the tab's history on down
   */
  record PersonInput(
      String kind,
      double x,
      double y,
      String button,
      double deltaX,
      double deltaY,
      String text,
      String key) {
    /** Never what was typed: a person's keys are not for logs. */
    @Override
    public String toString() {
      return "PersonInput[" + kind + "]";
    }
  }
}
