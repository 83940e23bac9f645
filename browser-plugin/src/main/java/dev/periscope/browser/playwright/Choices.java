package dev.periscope.browser.playwright;

import com.microsoft.playwright.ElementHandle;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.ProviderElement;
import java.util.List;
import java.util.Map;

/**
 * Choosing options of a select: checked against the element first, so a wrong value is named, not
 * guessed; and choosing a suggestion of a field's datalist.
 */
final class Choices {
  private Choices() {}

  /**
   * Runs in the option's document: when the option belongs to a datalist, puts its value into the
   * field that shows that datalist (the focused one, else the first that names it), as Chromium
   * does when a person picks the suggestion from its popup: the field gets the focus and the value,
   * then input (insertReplacementText) and change. Answers false for any other option, "none" when
   * no field names the datalist.
   */
  private static final String CHOOSE_SUGGESTION = PageScripts.script("choose-suggestion");

  /**
   * Chooses {@code target} when it is a suggestion of a field's datalist (which Chromium draws in a
   * popup of its own, out of the page's reach) and answers true; false for any other element, which
   * is clicked as it is.
   */
  static boolean suggestion(ElementHandle target, ProviderElement element) {
    Object chosen = target.evaluate(CHOOSE_SUGGESTION);
    if ("none".equals(chosen)) {
      throw new BrowserException(
          ErrorCode.BROWSER_ACTION_FAILED,
          "the suggestion \""
              + element.name()
              + "\" belongs to a datalist that no field shows any more; observe again");
    }
    return Boolean.TRUE.equals(chosen);
  }

  private static final String SELECT_FIT = PageScripts.script("select-fit");

  /**
   * Chooses by value or, failing that, by label; {@code BROWSER_INVALID_ARGUMENT} if the element or
   * a value does not fit.
   */
  static void select(ElementHandle target, ProviderElement element, List<String> values) {
    @SuppressWarnings("unchecked")
    Map<String, Object> fit = (Map<String, Object>) target.evaluate(SELECT_FIT, values);
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
