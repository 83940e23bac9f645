package dev.periscope.browser.playwright;

import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.Frame;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.TimeoutError;
import com.microsoft.playwright.options.BoundingBox;
import com.microsoft.playwright.options.ElementState;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.host.Secret;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * The fields of one environment that received a secret (a credential, or a password the model typed
 * where the project allows it): how their origin is read, how a secret is put into one, and how
 * every one of them is masked in screenshots. Call on the driver's thread.
 *
 * <p>An origin comes from the URL the browser committed for a frame, never from the page's scripts,
 * which can redefine {@code window.origin}. A frame without an http(s) URL of its own ({@code
 * about:srcdoc}, {@code data:}) has the opaque origin {@code "null"}, which no credential admits.
 */
final class CredentialFields {
  /**
   * The way out of the secrets, guarded once the first goes in ({@link EgressRoutes}): the
   * context's own from its start, or made then in a user's Chromium.
   */
  EgressRoutes egress;

  CredentialFields(EgressRoutes egress) {
    this.egress = egress;
  }

  /**
   * The mask's colour, opaque. Made when a mask is painted: {@link Color} loads AWT's native
   * libraries, which an environment that never masks should not wait for.
   */
  static Color mask() {
    return new Color(0x20, 0x20, 0x20);
  }

  /** A field that received a secret, and the tab's page it is in (its frame's top page). */
  private record Filled(ElementHandle field, Page page) {}

  private final List<Filled> filled = new ArrayList<>();

  /** The origins from the element's frame up to the top page, the field's own first. */
  static List<String> originChain(ElementHandle element) {
    List<String> chain = new ArrayList<>();
    for (Frame frame = element.ownerFrame(); frame != null; frame = frame.parentFrame()) {
      chain.add(originOfUrl(frame.url()));
    }
    return chain.isEmpty() ? List.of("null") : chain;
  }

  static String originOfUrl(String url) {
    try {
      URI uri = new URI(url);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        return "null";
      }
      int port = uri.getPort();
      boolean defaultPort =
          port == -1
              || (scheme.equals("http") && port == 80)
              || (scheme.equals("https") && port == 443);
      return scheme
          + "://"
          + uri.getHost().toLowerCase(Locale.ROOT)
          + (defaultPort ? "" : ":" + port);
    } catch (URISyntaxException e) {
      return "null";
    }
  }

  /**
   * Puts the secret into the field if its origin chain is still {@code expectedChain}, once the
   * field is editable (within {@code timeoutMs}), and returns how many characters it then holds.
   * The value is set in the field's own document with the native setter, followed by the input and
   * change events a typing user causes: typed keys would go to whatever has focus, and a page or
   * another frame can take focus between keys. The field gets {@code autocomplete=off} first, so
   * Chromium neither keeps its value for form restore nor offers it to autofill, and it is marked
   * in the registry under {@code registryKey} so that observations never read its value. A failure
   * says what failed in our words only.
   */
  int fill(
      ElementHandle target,
      ProviderElement element,
      Secret secret,
      List<String> expectedChain,
      long timeoutMs,
      String registryKey) {
    int length;
    Page page;
    try {
      if (channelLogged(System.getenv("DEBUG"))) {
        throw new BrowserException(
            ErrorCode.BROWSER_CREDENTIAL_DENIED,
            "Playwright's channel log is on in this"
                + " process (DEBUG contains pw:channel) and would write the secret to standard error; credentials and"
                + " typed passwords are not filled until it is off");
      }
      target.waitForElementState(
          ElementState.EDITABLE,
          new ElementHandle.WaitForElementStateOptions().setTimeout(timeoutMs));
      List<String> chain = originChain(target);
      if (!chain.equals(expectedChain)) {
        throw new BrowserException(
            ErrorCode.BROWSER_CREDENTIAL_DENIED,
            "the field \""
                + element.name()
                + "\" is now on "
                + String.join(" inside ", chain)
                + ", no longer on "
                + String.join(" inside ", expectedChain)
                + "; nothing was filled");
      }
      page = target.ownerFrame().page();
      // Marked first, in the environment's registry in the field's document, so that no observation
      // ever reads its value (state.js).
      target.evaluate(MARK_SECRET, registryKey);
      Object filledLength = target.evaluate(SET_VALUE, secret.reveal());
      if (!(filledLength instanceof Number n)) {
        throw new BrowserException(
            ErrorCode.BROWSER_INVALID_ARGUMENT,
            "the element \""
                + element.name()
                + "\" is not a text field ("
                + filledLength
                + "); credentials go into input and textarea fields");
      }
      length = n.intValue();
    } catch (RuntimeException e) {
      try {
        target.dispose();
      } catch (RuntimeException gone) {
        e.addSuppressed(gone);
      }
      throw failure(e, element, secret, timeoutMs);
    }
    filled.add(new Filled(target, page));
    return length;
  }

  /**
   * Runs in the field's document: sets the value through the prototype's own setter (so a framework
   * that tracks the value sees the change) and fires input and change. Answers the length it then
   * holds, or what the element is when it takes no text.
   */
  private static final String MARK_SECRET = PageScripts.script("mark-secret");

  private static final String SET_VALUE = PageScripts.script("fill-secret");

  /**
   * Playwright for Java logs every message it sends, parameters included, when DEBUG names
   * pw:channel.
   */
  static boolean channelLogged(String debug) {
    return debug != null && debug.contains("pw:channel");
  }

  private static RuntimeException failure(
      RuntimeException e, ProviderElement element, Secret secret, long timeoutMs) {
    if (e instanceof BrowserException) {
      return e;
    }
    if (e instanceof TimeoutError) {
      return new BrowserException(
          ErrorCode.BROWSER_ACTION_FAILED,
          "the field \""
              + element.name()
              + "\" did not become editable within "
              + timeoutMs
              + " ms; nothing was filled");
    }
    String reason =
        e instanceof PlaywrightException
            ? ChromiumLog.summary(e.getMessage())
            : e.getClass().getSimpleName();
    return new BrowserException(
        ErrorCode.BROWSER_ACTION_FAILED,
        "the secret could not be filled into \""
            + element.name()
            + "\": "
            + secret.redactFrom(reason, "[REDACTED]"));
  }

  /** Whether any field received a credential (every capture of its page masks it then). */
  boolean any() {
    // A field whose page closed holds nothing any picture shows.
    filled.removeIf(f -> f.page().isClosed());
    return !filled.isEmpty();
  }

  /**
   * The rectangles, in CSS pixels of the capture, of every filled field still on {@code page} (the
   * fields of the environment's other tabs are not in its pictures).
   */
  List<BoundingBox> masks(Page page, boolean fullPage) {
    List<BoundingBox> boxes = new ArrayList<>();
    double scrollX = 0;
    double scrollY = 0;
    filled.removeIf(f -> f.page().isClosed());
    List<Filled> onPage = filled.stream().filter(f -> f.page() == page).toList();
    if (fullPage && !onPage.isEmpty()) {
      @SuppressWarnings("unchecked")
      List<Number> scroll = (List<Number>) page.evaluate("() => [scrollX, scrollY]");
      scrollX = scroll.get(0).doubleValue();
      scrollY = scroll.get(1).doubleValue();
    }
    // A copy: a call to the driver may deliver events, and their handlers may look here too.
    for (Filled f : onPage) {
      BoundingBox box;
      try {
        box = f.field().boundingBox();
      } catch (PlaywrightException e) {
        if (!detached(e)) {
          throw e; // not known to be gone (a timeout): nothing is shown unmasked
        }
        filled.remove(f); // its document is gone: the next page does not hold this value
        continue;
      }
      if (box != null) {
        BoundingBox b = new BoundingBox();
        b.x = box.x + scrollX;
        b.y = box.y + scrollY;
        b.width = box.width;
        b.height = box.height;
        boxes.add(b);
      }
    }
    return boxes;
  }

  /** Whether a failure says the element's document or page is gone, not only that it was slow. */
  private static boolean detached(PlaywrightException e) {
    String m = String.valueOf(e.getMessage());
    return m.contains("not attached")
        || m.contains("has been closed")
        || m.contains("Execution context was destroyed")
        || m.contains("Cannot find context")
        || m.contains("Could not find node")
        || m.contains("is disposed")
        || m.contains("Target closed");
  }

  /**
   * The PNG with every box painted over in the mask colour; the same bytes when there is nothing to
   * mask.
   */
  static byte[] paint(byte[] png, List<BoundingBox> boxes, double ratio) {
    return paint(png, boxes, ratio, "png");
  }

  /**
   * The image of a viewport {@code cssWidth} CSS pixels wide, at whatever scale, with every box
   * painted over; written back in {@code format} (png, jpg).
   */
  static byte[] paintScaled(byte[] bytes, List<BoundingBox> boxes, double cssWidth, String format) {
    return boxes.isEmpty() ? bytes : paint(bytes, boxes, -cssWidth, format);
  }

  /**
   * The image with every box painted over, written back in {@code format} (png, jpg); a negative
   * {@code ratio} is the CSS width of the image, its ratio then read from the image.
   */
  private static byte[] paint(byte[] png, List<BoundingBox> boxes, double ratio, String format) {
    if (boxes.isEmpty()) {
      return png;
    }
    try {
      BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
      if (ratio < 0) {
        ratio = image.getWidth() / -ratio;
      }
      Graphics2D g = image.createGraphics();
      try {
        g.setColor(mask());
        for (BoundingBox b : boxes) {
          int x = (int) Math.floor(b.x * ratio) - 2;
          int y = (int) Math.floor(b.y * ratio) - 2;
          g.fillRect(
              x, y, (int) Math.ceil(b.width * ratio) + 4, (int) Math.ceil(b.height * ratio) + 4);
        }
      } finally {
        g.dispose();
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream(png.length);
      ImageIO.write(image, format, out);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
