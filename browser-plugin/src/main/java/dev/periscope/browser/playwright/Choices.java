package dev.periscope.browser.playwright;

import com.microsoft.playwright.ElementHandle;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.ProviderElement;
import java.util.List;
import java.util.Map;

/**
 * Choosing options of a select: checked against the element first, so a wrong value is named, not
 * guessed.
 */
final class Choices {
  private Choices() {}

  /**
   * Chooses by value or, failing that, by label; {@code BROWSER_INVALID_ARGUMENT} if the element or
   * a value does not fit.
   */
  static void select(ElementHandle target, ProviderElement element, List<String> values) {
    @SuppressWarnings("unchecked")
    Map<String, Object> fit =
        (Map<String, Object>)
            target.evaluate(
                """
        (el, values) => ({
          isSelect: el.tagName === 'SELECT', multiple: !!el.multiple,
          unmatched: values.filter(v => !Array.from(el.options || []).some(
              o => o.value === v || o.label === v || o.text.trim() === v))
        })""",
                values);
    if (!Boolean.TRUE.equals(fit.get("isSelect"))) {
      throw new BrowserException(
          ErrorCode.BROWSER_INVALID_ARGUMENT, "element \"" + element.name() + "\" is not a select");
    }
    if (values.size() > 1 && !Boolean.TRUE.equals(fit.get("multiple"))) {
      throw new BrowserException(
          ErrorCode.BROWSER_INVALID_ARGUMENT,
          "/values: \""
              + element.name()
              + "\" takes one option; more than one needs a multi-select");
    }
    List<?> unmatched = (List<?>) fit.get("unmatched");
    if (!unmatched.isEmpty()) {
      throw new BrowserException(
          ErrorCode.BROWSER_INVALID_ARGUMENT,
          "/values: no option of \"" + element.name() + "\" has the value or label " + unmatched);
    }
    target.selectOption(values.toArray(String[]::new));
  }
}
