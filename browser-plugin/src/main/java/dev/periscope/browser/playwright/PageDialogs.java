package dev.periscope.browser.playwright;

import com.microsoft.playwright.Dialog;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.PageDialog;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

/**
 * The dialogs of one primary page. A dialog that an action opens ({@link #around}) stays open for
 * the model to answer ({@link #answer}); one opened while no action runs is dismissed at once and
 * reported as a page event, and so is one left unanswered for the configured time.
 *
 * <p>While a dialog is open the page runs nothing else: a script, a screenshot, even a CDP command
 * to it waits for the dialog. Playwright hands the dialog over as an event, while a call runs on
 * the lane's thread; during an action the handler keeps it and throws {@link Opened}, which unwinds
 * the action's Playwright call that the dialog holds up. The driver finishes that call once the
 * dialog is answered, and its answer is dropped. Every method runs on the lane's thread.
 */
final class PageDialogs implements ActionStage {
  private final Page page;
  private final Lane lane;
  private final long answerTimeoutMs;
  private final long boundMs;
  private final Consumer<String> report;
  private Dialog pending;
  private PageDialog shown;
  private ScheduledFuture<?> expiry;
  private boolean answerable;

  /** What waits for the open dialog's answer: a drag's release. */
  private final java.util.List<Runnable> afterAnswer = new java.util.ArrayList<>();

  /**
   * Characters of a dialog's message kept past what is shown, so that the runtime redacts a secret
   * whole before the text is cut to its length (as {@code Redactions.CUT_SLACK}).
   */
  private static final int REDACTION_SLACK = 256;

  /**
   * Handles {@code page}'s dialogs; {@code report} takes a page event, {@code boundMs} bounds the
   * dismissal of an expired dialog.
   */
  PageDialogs(Page page, Lane lane, long answerTimeoutMs, long boundMs, Consumer<String> report) {
    this.page = page;
    this.lane = lane;
    this.answerTimeoutMs = answerTimeoutMs;
    this.boundMs = boundMs;
    this.report = report;
    page.onDialog(this::opened);
  }

  /** Unwinds the action whose call a dialog holds up. Carries no stack: it is not a failure. */
  private static final class Opened extends RuntimeException {
    Opened() {
      super("a dialog opened", null, false, false);
    }
  }

  private void opened(Dialog dialog) {
    if (answerable && pending == null) {
      expiry = lane.later(answerTimeoutMs, () -> expire(dialog), boundMs);
      pending = dialog;
      shown =
          new PageDialog(
              dialog.type(),
              cut(dialog.message(), PageDialog.MAX_CHARS + REDACTION_SLACK),
              cut(dialog.defaultValue(), PageDialog.MAX_CHARS + REDACTION_SLACK));
      throw new Opened();
    }
    dismiss(dialog, "");
  }

  private void dismiss(Dialog dialog, String why) {
    try {
      dialog.dismiss();
    } catch (PlaywrightException gone) {
      // The page went, and its dialog with it.
    }
    report.accept(
        "dismissed "
            + article(dialog.type())
            + " dialog: \""
            + clip(dialog.message())
            + "\""
            + why);
  }

  private void expire(Dialog dialog) {
    if (pending != dialog) {
      return;
    }
    pending = null;
    shown = null;
    expiry = null;
    dismiss(dialog, ", left unanswered for " + duration(answerTimeoutMs));
    runAfterAnswer();
  }

  /** Whether {@code e} is the unwinding of an action a dialog stopped. */
  static boolean stoppedBy(Throwable e) {
    return e instanceof Opened;
  }

  /** Runs {@code task} once the open dialog is answered or dismissed, before what follows. */
  void afterAnswer(Runnable task) {
    afterAnswer.add(task);
  }

  private void runAfterAnswer() {
    java.util.List<Runnable> tasks = java.util.List.copyOf(afterAnswer);
    afterAnswer.clear();
    for (Runnable task : tasks) {
      try {
        task.run();
      } catch (PlaywrightException gone) {
        // The page went on without it.
      }
    }
  }

  /** The dialog that waits for an answer, if one does. */
  Optional<PageDialog> pending() {
    return Optional.ofNullable(shown);
  }

  /**
   * Runs an action, whose own work ({@link #during}) a dialog the page opens stops: the action ends
   * where the dialog stopped it, past the checks around that work, and returns null. With a dialog
   * already open, {@code BROWSER_DIALOG_PENDING} naming it.
   */
  @Override
  public <T> T around(String what, Callable<T> action) throws Exception {
    requireNone(what);
    try {
      return action.call();
    } catch (Opened stopped) {
      return null;
    }
  }

  /**
   * The action's own work, inside {@link #around}: a dialog that opens while it runs is the
   * action's and waits for the model. One that opens during the checks before or after it (the
   * guards' reads) is not, and is dismissed as any dialog outside an action is.
   */
  <T> T during(Callable<T> work) throws Exception {
    answerable = true;
    try {
      return work.call();
    } finally {
      answerable = false;
    }
  }

  /** {@link #during} as the innermost stage of an action's pipeline. */
  final ActionStage work =
      new ActionStage() {
        @Override
        public <T> T around(String what, Callable<T> rest) throws Exception {
          return during(rest);
        }
      };

  /** {@code BROWSER_DIALOG_PENDING} naming the open dialog, if there is one. */
  void requireNone(String what) {
    if (shown != null) {
      throw BrowserException.of(
              ErrorCode.BROWSER_DIALOG_PENDING,
              article(shown.type())
                  + " dialog is open (\""
                  + clip(shown.message())
                  + "\"), and the page runs nothing until it is answered; answer it with"
                  + " browser_dialog (accept or dismiss) before "
                  + what)
          .withUrl(page.url());
    }
  }

  /**
   * Accepts the open dialog (a prompt with {@code promptText}, or its own text when null) or
   * dismisses it, then runs {@code afterward} with the dialog's type, as an action: a dialog the
   * page opens next waits in its turn. With none open, {@code BROWSER_POLICY_DENIED}.
   */
  void answer(boolean accept, String promptText, Consumer<String> afterward) {
    Dialog dialog = pending;
    if (dialog == null) {
      throw BrowserException.of(
              ErrorCode.BROWSER_POLICY_DENIED,
              "there is no dialog open to answer: it was answered, dismissed after "
                  + duration(answerTimeoutMs)
                  + " unanswered, or went with its page")
          .withUrl(page.url());
    }
    pending = null;
    shown = null;
    cancelExpiry();
    answerable = true;
    try {
      if (accept) {
        dialog.accept(promptText != null ? promptText : dialog.defaultValue());
      } else {
        dialog.dismiss();
      }
      runAfterAnswer();
      afterward.accept(dialog.type());
    } catch (Opened next) {
      // The page opened another: it waits in its turn.
    } finally {
      answerable = false;
    }
  }

  /** Stops the expiry of an open dialog: its page is closing. */
  void cancelExpiry() {
    if (expiry != null) {
      expiry.cancel(false);
      expiry = null;
    }
  }

  static String article(String dialogType) {
    return switch (dialogType) {
      case "alert" -> "an alert";
      case "beforeunload" -> "a leave-page";
      case "" -> "a";
      default -> "a " + dialogType;
    };
  }

  /**
   * A message as one line for a page event or a failure: 120 characters and the redaction slack, so
   * that a secret in it is redacted whole.
   */
  private static String clip(String message) {
    return cut(String.valueOf(message).replaceAll("\\s+", " ").strip(), 120 + REDACTION_SLACK);
  }

  private static String cut(String s, int max) {
    if (s == null) {
      return "";
    }
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }

  private static String duration(long ms) {
    return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
  }
}
