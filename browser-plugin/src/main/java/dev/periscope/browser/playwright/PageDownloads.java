package dev.periscope.browser.playwright;

import com.microsoft.playwright.Download;
import com.microsoft.playwright.PlaywrightException;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.DownloadedFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The downloads of one primary page. One that starts while an action runs ({@link #during}), when
 * the project allows downloads, is kept: once the action is done ({@link #collect}) the file is
 * waited for, refused past the size cap, read into quarantine (its type sniffed from its bytes, its
 * sha256 taken) and deleted from the browser's disk, for the tool layer to store as an attachment.
 * Any other download is cancelled by {@link PageGuards} as before. Never opened or run. On the
 * lane's thread, but {@link #take} from the runtime's.
 */
final class PageDownloads {
  /**
   * The most downloads one action may start: each is read whole into quarantine, so what one action
   * holds is bounded by this times the size cap. Past it the action fails and keeps none.
   */
  static final int MAX_PER_ACTION = 5;

  private final PlaywrightSettings.Downloads policy;
  private final List<Download> started = new ArrayList<>();
  private final List<DownloadedFile> kept = new ArrayList<>();
  private boolean acting;

  /** The pages of the environment's other tabs, read as each action begins. */
  private final java.util.function.Supplier<java.util.Set<com.microsoft.playwright.Page>> others;

  /** The pages no running action acts in: tabs other than the one it began in. */
  private java.util.Set<com.microsoft.playwright.Page> bystanders = java.util.Set.of();

  PageDownloads(
      PlaywrightSettings.Downloads policy,
      java.util.function.Supplier<java.util.Set<com.microsoft.playwright.Page>> others) {
    this.policy = policy;
    this.others = others;
  }

  /**
   * Whether a download {@code page} starts now is the running action's, and allowed: not one of a
   * tab the action does not act in (a popup it opened is its own).
   */
  boolean accepting(com.microsoft.playwright.Page page) {
    return policy.enabled() && acting && (page == null || !bystanders.contains(page));
  }

  /**
   * Keeps {@code download} when {@link #accepting} and the action has kept fewer than {@value
   * #MAX_PER_ACTION}; false leaves it to be cancelled.
   */
  boolean keep(Download download) {
    if (!accepting(download.page()) || full()) {
      return false;
    }
    started.add(download);
    return true;
  }

  /** Whether the running action has kept as many downloads as one may. */
  boolean full() {
    return acting && started.size() >= MAX_PER_ACTION;
  }

  private <T> T during(Callable<T> action) throws Exception {
    bystanders = others.get();
    acting = true;
    try {
      return action.call();
    } finally {
      acting = false;
    }
  }

  /**
   * An action's stage: the downloads it starts are its own, kept once it succeeds (named after the
   * page {@code from} gives then) and dropped when it fails.
   */
  ActionStage stage(java.util.function.Supplier<String> from) {
    return new ActionStage() {
      @Override
      public <T> T around(String what, Callable<T> rest) throws Exception {
        T result;
        try {
          result = during(rest);
        } catch (Exception failed) {
          // A failed action keeps nothing it downloaded.
          discard();
          throw failed;
        }
        collect(from.get());
        return result;
      }
    };
  }

  /**
   * Waits for the downloads the action started and quarantines them; one over the cap, or one that
   * failed, is refused with {@code BROWSER_POLICY_DENIED} naming it, after the others are kept.
   */
  void collect(String url) {
    if (started.isEmpty()) {
      return;
    }
    List<Download> done = List.copyOf(started);
    started.clear();
    List<String> refused = new ArrayList<>();
    for (Download d : done) {
      String name = d.suggestedFilename();
      try {
        Path path = d.path();
        String failure = d.failure();
        if (failure != null || path == null) {
          refused.add(name + " did not arrive (" + failure + ")");
          continue;
        }
        long size = Files.size(path);
        if (size > policy.maxBytes()) {
          refused.add(
              name
                  + " is "
                  + size
                  + " bytes, more than "
                  + policy.maxBytes()
                  + " (plugins.browser.downloads.maxBytes)");
          continue;
        }
        byte[] bytes = Files.readAllBytes(path);
        synchronized (kept) {
          kept.add(new DownloadedFile(name, FileTypes.sniff(bytes), sha256(bytes), bytes));
        }
      } catch (IOException | PlaywrightException e) {
        refused.add(name + " could not be read");
      } finally {
        try {
          d.delete();
        } catch (PlaywrightException gone) {
          // Its context went, and the file with it.
        }
      }
    }
    if (!refused.isEmpty()) {
      throw BrowserException.of(
              ErrorCode.BROWSER_POLICY_DENIED,
              "the download was refused: " + String.join("; ", refused))
          .withUrl(url);
    }
  }

  /** Drops the downloads of an action that failed: none is kept, each is cancelled and deleted. */
  void discard() {
    List<Download> dropped = List.copyOf(started);
    started.clear();
    for (Download d : dropped) {
      try {
        d.cancel();
        d.delete();
      } catch (PlaywrightException gone) {
        // Its context went, and the file with it.
      }
    }
  }

  /** The files kept since the last call, in quarantine; each is handed over once. */
  List<DownloadedFile> take() {
    synchronized (kept) {
      List<DownloadedFile> taken = List.copyOf(kept);
      kept.clear();
      return taken;
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
