package dev.periscope.browser.playwright;

import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.Frame;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.TimeoutError;
import com.microsoft.playwright.options.BoundingBox;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.ProviderElement;
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
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * The fields of one environment that received a credential: how their origin is read, how a secret is typed into
 * one, and how every one of them is masked in screenshots. Call on the driver's thread.
 *
 * <p>The origin comes from the URL the browser committed for the element's frame, never from the page's scripts,
 * which can redefine {@code window.origin}. A frame without an http(s) URL of its own ({@code about:srcdoc},
 * {@code data:}) has the opaque origin {@code "null"}, which no credential admits.
 */
final class CredentialFields {
  /** The mask's colour, opaque. */
  static final Color MASK = new Color(0x20, 0x20, 0x20);

  private final List<ElementHandle> filled = new ArrayList<>();

  static String originOf(ElementHandle element) {
    Frame frame = element.ownerFrame();
    return frame == null ? "null" : originOfUrl(frame.url());
  }

  static String originOfUrl(String url) {
    try {
      URI uri = new URI(url);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        return "null";
      }
      int port = uri.getPort();
      boolean defaultPort = port == -1 || (scheme.equals("http") && port == 80) || (scheme.equals("https") && port == 443);
      return scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + (defaultPort ? "" : ":" + port);
    } catch (URISyntaxException e) {
      return "null";
    }
  }

  /**
   * Types the secret into the field if its frame still has {@code expectedOrigin}. The field gets
   * {@code autocomplete=off} first, so Chromium neither keeps its value for form restore nor offers it to autofill.
   * A failure says what failed in our words only: Playwright's message quotes what it was asked to type.
   */
  void fill(ElementHandle target, ProviderElement element, Secret secret, String expectedOrigin, long timeoutMs) {
    if (channelLogged(System.getenv("DEBUG"))) {
      target.dispose();
      throw new BrowserException(ErrorCode.BROWSER_CREDENTIAL_DENIED, "Playwright's channel log is on in this"
          + " process (DEBUG contains pw:channel) and would write the secret to standard error; credentials are"
          + " not filled until it is off");
    }
    try {
      String origin = originOf(target);
      if (!origin.equals(expectedOrigin)) {
        throw new BrowserException(ErrorCode.BROWSER_CREDENTIAL_DENIED, "the field \"" + element.name()
            + "\" moved from " + expectedOrigin + " to " + origin + " before the fill; nothing was filled");
      }
      target.evaluate("el => el.setAttribute('autocomplete', 'off')");
      target.fill(secret.reveal(), new ElementHandle.FillOptions().setTimeout(timeoutMs));
    } catch (RuntimeException e) {
      target.dispose();
      throw failure(e, element, secret, timeoutMs);
    }
    filled.add(target);
  }

  /** Playwright for Java logs every message it sends, parameters included, when DEBUG names pw:channel. */
  static boolean channelLogged(String debug) {
    return debug != null && debug.contains("pw:channel");
  }

  private static RuntimeException failure(RuntimeException e, ProviderElement element, Secret secret, long timeoutMs) {
    if (e instanceof BrowserException) {
      return e;
    }
    if (e instanceof TimeoutError) {
      return new BrowserException(ErrorCode.BROWSER_ACTION_FAILED, "the field \"" + element.name()
          + "\" did not become editable within " + timeoutMs + " ms; nothing was filled");
    }
    String reason = e instanceof PlaywrightException ? ChromiumLog.summary(e.getMessage()) : e.getClass().getSimpleName();
    return new BrowserException(ErrorCode.BROWSER_ACTION_FAILED, "the credential could not be filled into \""
        + element.name() + "\": " + secret.redactFrom(reason, "[REDACTED]"));
  }

  /** The rectangles, in CSS pixels of the capture, of every filled field still on the page. */
  List<BoundingBox> masks(Page page, boolean fullPage) {
    List<BoundingBox> boxes = new ArrayList<>();
    double scrollX = 0;
    double scrollY = 0;
    if (fullPage && !filled.isEmpty()) {
      @SuppressWarnings("unchecked")
      List<Number> scroll = (List<Number>) page.evaluate("() => [scrollX, scrollY]");
      scrollX = scroll.get(0).doubleValue();
      scrollY = scroll.get(1).doubleValue();
    }
    for (Iterator<ElementHandle> i = filled.iterator(); i.hasNext();) {
      ElementHandle field = i.next();
      BoundingBox box;
      try {
        box = field.boundingBox();
      } catch (PlaywrightException gone) {
        i.remove(); // its document is gone: the next page does not hold this value
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

  /** The PNG with every box painted over in the mask colour; the same bytes when there is nothing to mask. */
  static byte[] paint(byte[] png, List<BoundingBox> boxes, double ratio) {
    if (boxes.isEmpty()) {
      return png;
    }
    try {
      BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
      Graphics2D g = image.createGraphics();
      try {
        g.setColor(MASK);
        for (BoundingBox b : boxes) {
          int x = (int) Math.floor(b.x * ratio) - 2;
          int y = (int) Math.floor(b.y * ratio) - 2;
          g.fillRect(x, y, (int) Math.ceil(b.width * ratio) + 4, (int) Math.ceil(b.height * ratio) + 4);
        }
      } finally {
        g.dispose();
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream(png.length);
      ImageIO.write(image, "png", out);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
