package dev.periscope.api.browser;

/**
 * A dialog the page opened in answer to an action and that waits for the model: its {@code type}
 * ({@code alert}, {@code confirm}, {@code prompt} or {@code beforeunload}), its {@code message},
 * and for a prompt the text it offers ({@code ""} otherwise). While it is open the page runs
 * nothing else: it is answered with {@code browser_dialog}, and other actions on the page fail
 * {@code BROWSER_DIALOG_PENDING}.
 *
 * <p>Immutable and thread-safe.
 */
public record PageDialog(String type, String message, String defaultPrompt) {
  /** The most characters of a message or prompt text shown. */
  public static final int MAX_CHARS = 2_000;

  public PageDialog {
    type = type == null ? "" : type;
    message = message == null ? "" : message;
    defaultPrompt = defaultPrompt == null ? "" : defaultPrompt;
  }

  /**
   * This dialog with its texts cut to {@link #MAX_CHARS}: done after redaction, so that a secret
   * across the cut is redacted whole before it.
   */
  public PageDialog shown() {
    return new PageDialog(type, cut(message), cut(defaultPrompt));
  }

  private static String cut(String s) {
    return s.length() <= MAX_CHARS ? s : s.substring(0, MAX_CHARS) + "…";
  }
}
