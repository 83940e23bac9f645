package dev.periscope.api.browser;

import java.util.List;

/**
 * An action on a page. Element-addressed actions name the latest observation and one of its refs; the optional
 * ones ({@link Press}, {@link Scroll}, {@link Wait}) act on the page when both are null.
 */
public sealed interface BrowserAction {
  /** The keys {@link Press} accepts. */
  List<String> KEYS = List.of("Enter", "Escape", "Tab", "Backspace", "Delete", "Space", "ArrowUp", "ArrowDown",
      "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown");

  /** The action's kind as transitions record it. */
  String kind();

  record Navigate(String url) implements BrowserAction {
    public String kind() {
      return "navigate";
    }
  }

  record Click(String observationId, String elementRef) implements BrowserAction {
    public String kind() {
      return "click";
    }
  }

  record Fill(String observationId, String elementRef, String value) implements BrowserAction {
    public String kind() {
      return "fill";
    }

    @Override
    public String toString() {
      return "Fill[" + observationId + ", " + elementRef + ", " + value.length() + " chars]";
    }
  }

  /**
   * Fills the secret a credential reference stands for into a field. The action holds only the reference: the
   * runtime resolves the secret, checks the field's origin, asks for approval, and hands the secret to the
   * provider's {@link BrowserEnvironment#fillCredential}.
   */
  record FillCredential(String observationId, String elementRef, String credentialRef) implements BrowserAction {
    public String kind() {
      return "fill_credential";
    }
  }

  record Press(String observationId, String elementRef, String key) implements BrowserAction {
    public String kind() {
      return "press";
    }
  }

  /** Chooses options of a select by value or, failing that, by label. */
  record Select(String observationId, String elementRef, List<String> values) implements BrowserAction {
    public Select {
      values = List.copyOf(values);
    }

    public String kind() {
      return "select";
    }
  }

  record Check(String observationId, String elementRef, boolean checked) implements BrowserAction {
    public String kind() {
      return "check";
    }
  }

  /** {@code to} is up, down (by {@code pages} viewports), top, bottom, or element (into view). */
  record Scroll(String to, double pages, String observationId, String elementRef) implements BrowserAction {
    public String kind() {
      return "scroll";
    }
  }

  /** {@code until} is load, network-idle, element-visible or element-hidden, within {@code timeoutMs}. */
  record Wait(String until, String observationId, String elementRef, long timeoutMs) implements BrowserAction {
    public String kind() {
      return "wait";
    }
  }

  /** {@code move} is back, forward or reload. */
  record History(String move) implements BrowserAction {
    public String kind() {
      return move;
    }
  }
}
