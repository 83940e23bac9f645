package dev.periscope.api.browser;

import dev.periscope.api.browser.BrowserAction.AnswerDialog;
import dev.periscope.api.browser.BrowserAction.Check;
import dev.periscope.api.browser.BrowserAction.Click;
import dev.periscope.api.browser.BrowserAction.Drag;
import dev.periscope.api.browser.BrowserAction.Evaluate;
import dev.periscope.api.browser.BrowserAction.Fill;
import dev.periscope.api.browser.BrowserAction.FillCredential;
import dev.periscope.api.browser.BrowserAction.History;
import dev.periscope.api.browser.BrowserAction.Navigate;
import dev.periscope.api.browser.BrowserAction.PointAt;
import dev.periscope.api.browser.BrowserAction.Press;
import dev.periscope.api.browser.BrowserAction.Scroll;
import dev.periscope.api.browser.BrowserAction.Select;
import dev.periscope.api.browser.BrowserAction.Tabs;
import dev.periscope.api.browser.BrowserAction.Type;
import dev.periscope.api.browser.BrowserAction.Upload;
import dev.periscope.api.browser.BrowserAction.Wait;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How the transition log records each action: the bodies of their {@code describe()}, named by
 * their rows in {@link ActionTable}. A value typed, a prompt's answer, a wait's text and name are
 * the model's own words: only their length is recorded; a credential only by its reference.
 */
final class ActionLog {
  private ActionLog() {}

  /** An action that says no more than its kind and the element it names (a hover, a clear). */
  static Map<String, Object> describe(BrowserAction<?> a, String elementRef) {
    return Fields.of(a.kind()).put("element_ref", elementRef).map();
  }

  static Map<String, Object> describe(Navigate a) {
    return Fields.of(a.kind()).put("url", a.url()).map();
  }

  static Map<String, Object> describe(Drag a) {
    return Fields.of(a.kind())
        .put("element_ref", a.elementRef())
        .put("to_element_ref", a.toElementRef())
        .map();
  }

  static Map<String, Object> describe(Press a) {
    return Fields.of(a.kind())
        .putIfPresent("element_ref", a.elementRef())
        .put("key", a.key())
        .map();
  }

  static Map<String, Object> describe(Select a) {
    return Fields.of(a.kind()).put("element_ref", a.elementRef()).put("values", a.values()).map();
  }

  static Map<String, Object> describe(Check a) {
    return Fields.of(a.kind()).put("element_ref", a.elementRef()).put("checked", a.checked()).map();
  }

  static Map<String, Object> describe(History a) {
    return Fields.of(a.kind()).map();
  }

  static Map<String, Object> describe(Click a) {
    Fields f = Fields.of(a.kind()).put("element_ref", a.elementRef());
    if (a.button() != Click.Button.LEFT) {
      f.put("button", a.button().id());
    }
    if (a.clicks() != 1) {
      f.put("click_count", a.clicks());
    }
    if (a.offset() != null) {
      f.put("offset_x", a.offset().x()).put("offset_y", a.offset().y());
    }
    return f.map();
  }

  static Map<String, Object> describe(Type a) {
    return Fields.of(a.kind())
        .putIfPresent("element_ref", a.elementRef())
        .put("value", "[REDACTED]")
        .put("value_length", a.text().length())
        .put("delay_ms", a.delayMs())
        .map();
  }

  static Map<String, Object> describe(Fill a) {
    return Fields.of(a.kind())
        .put("element_ref", a.elementRef())
        .put("value", "[REDACTED]")
        .put("value_length", a.value().length())
        .map();
  }

  static Map<String, Object> describe(FillCredential a) {
    return Fields.of(a.kind())
        .put("element_ref", a.elementRef())
        .put("credential_ref", a.credentialRef())
        .put("value", "[REDACTED]")
        .map();
  }

  /** A script by its length and SHA-256, never its text: it may quote what the page holds. */
  static Map<String, Object> describe(Evaluate a) {
    String e = a.expression() == null ? "" : a.expression();
    return Fields.of(a.kind())
        .put("expression_chars", e.length())
        .put("expression_sha256", sha256(e))
        .map();
  }

  private static String sha256(String text) {
    try {
      byte[] d =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(d);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  static Map<String, Object> describe(Scroll a) {
    return Fields.of(a.kind())
        .put("to", a.to().id())
        .put("pages", a.pages())
        .putIfPresent("element_ref", a.elementRef())
        .map();
  }

  static Map<String, Object> describe(Wait a) {
    return Fields.of(a.kind())
        .put("until", a.until().id())
        .put("timeout_ms", a.timeoutMs())
        .putIfPresent("element_ref", a.elementRef())
        .putIfPresent("role", a.role())
        .putIfPresent("name_chars", a.name() == null ? null : a.name().length())
        .putIfPresent("text_chars", a.text() == null ? null : a.text().length())
        .putIfPresent("url", a.url())
        .map();
  }

  static Map<String, Object> describe(Tabs a) {
    Fields f = Fields.of(a.kind());
    if (a.tab() != null) {
      f.put("tab", a.tab());
    }
    if (a.url() != null) {
      f.put("url", a.url());
    }
    return f.map();
  }

  static Map<String, Object> describe(AnswerDialog a) {
    Fields f = Fields.of(a.kind()).put("accept", a.accept());
    if (a.promptText() != null) {
      f.put("prompt_text", "[REDACTED]").put("prompt_text_length", a.promptText().length());
    }
    return f.map();
  }

  static Map<String, Object> describe(Upload a) {
    return Fields.of(a.kind())
        .put("element_ref", a.elementRef())
        .put("attachment_refs", a.files().stream().map(Upload.UploadFile::attachmentRef).toList())
        .put("bytes", a.files().stream().mapToLong(f -> f.content().length).sum())
        .map();
  }

  static Map<String, Object> describe(PointAt a) {
    PointAt.Gesture gesture = a.gesture();
    Fields f =
        Fields.of(a.kind()).put("gesture", EnumIds.id(gesture)).put("x", a.x()).put("y", a.y());
    if (gesture == PointAt.Gesture.DRAG) {
      f.put("to_x", a.toX()).put("to_y", a.toY());
    }
    if (gesture == PointAt.Gesture.SCROLL) {
      f.put("delta_x", a.deltaX()).put("delta_y", a.deltaY());
    }
    if (a.text() != null) {
      f.put("value", "[REDACTED]").put("value_length", a.text().length());
    }
    return f.map();
  }

  /** The fields of an action's description, in order. */
  static final class Fields {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    private Fields() {}

    static Fields of(String kind) {
      Fields f = new Fields();
      f.fields.put("kind", kind);
      return f;
    }

    Fields put(String key, Object value) {
      fields.put(key, value);
      return this;
    }

    Fields putIfPresent(String key, Object value) {
      return value == null ? this : put(key, value);
    }

    Map<String, Object> map() {
      return fields;
    }
  }
}
