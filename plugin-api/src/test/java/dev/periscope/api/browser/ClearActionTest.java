package dev.periscope.api.browser;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.browser.spi.ProviderElement;
import org.junit.jupiter.api.Test;

/** browser_clear's action: what it empties, what it refuses, and a provider built before it. */
class ClearActionTest {
  private static ProviderElement element(String kind, String role, String inputType) {
    return new ProviderElement("0", "fp", kind, role, "Search", false, inputType, 1);
  }

  @Test
  void aTextFieldASearchBoxAnEditableElementAndAPasswordFieldMayBeEmptied() {
    var clear = new BrowserAction.Clear("o1", "e1");
    assertDoesNotThrow(() -> clear.admit(element("input", "textbox", "text")));
    assertDoesNotThrow(() -> clear.admit(element("input:search", "searchbox", "search")));
    assertDoesNotThrow(() -> clear.admit(element("div", "textbox", null)));
    assertDoesNotThrow(() -> clear.admit(element("input:password", "textbox", "password")));
    assertDoesNotThrow(() -> clear.admit(element("input", "combobox", "text")));
  }

  @Test
  void anElementThatHoldsNoTextIsRefusedNamingWhatItIs() {
    var clear = new BrowserAction.Clear("o1", "e7");
    var button =
        assertThrows(BrowserException.class, () -> clear.admit(element("button", "button", null)));
    assertEquals(ErrorCode.BROWSER_INVALID_ARGUMENT, button.code());
    assertTrue(
        button.getMessage().contains("element \"e7\" is button (role button)"),
        button.getMessage());
    var select =
        assertThrows(
            BrowserException.class, () -> clear.admit(element("select", "combobox", null)));
    assertTrue(select.getMessage().contains("holds no text to empty"), select.getMessage());
  }

  @Test
  void itNeedsARefAndDescribesItselfWithoutMore() {
    assertThrows(BrowserException.class, () -> new BrowserAction.Clear("o1", null).validate());
    var clear = new BrowserAction.Clear("o1", "e1");
    assertEquals("clear", clear.kind());
    assertEquals("clearing the field", clear.step());
    assertEquals(java.util.Map.of("kind", "clear", "element_ref", "e1"), clear.describe());
  }

  @Test
  void aProviderBuiltBeforeItRefusesItAsUnsupported() {
    BrowserAction.Handler before =
        (BrowserAction.Handler)
            java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {BrowserAction.Handler.class},
                (proxy, method, args) ->
                    method.isDefault()
                        ? java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args)
                        : null);
    var e =
        assertThrows(
            BrowserException.class,
            () ->
                new BrowserAction.Clear("o1", "e1")
                    .accept(before, element("input", "textbox", "text"), null));
    assertEquals(ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED, e.code());
  }
}
