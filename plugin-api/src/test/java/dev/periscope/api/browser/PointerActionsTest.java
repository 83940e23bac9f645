package dev.periscope.api.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The click's options, the drag and typing key by key: their validation and their records. */
class PointerActionsTest {
  private static BrowserException refused(BrowserAction<?> action) {
    return assertThrows(BrowserException.class, action::validate);
  }

  @Test
  void aPlainClickRecordsOnlyItsRefAndAnyOtherClickRecordsWhatDiffers() {
    var plain = new BrowserAction.Click("o1", "e1");
    plain.validate();
    assertTrue(plain.plain());
    assertEquals(Map.of("kind", "click", "element_ref", "e1"), plain.describe());

    var right =
        new BrowserAction.Click(
            "o1", "e1", BrowserAction.Click.Button.RIGHT, 2, new BrowserAction.Click.Offset(3, 4));
    right.validate();
    assertFalse(right.plain());
    assertEquals(
        Map.of(
            "kind",
            "click",
            "element_ref",
            "e1",
            "button",
            "right",
            "click_count",
            2,
            "offset_x",
            3,
            "offset_y",
            4),
        right.describe());
  }

  @Test
  void aClickCountOutsideOneToThreeAndANegativeOffsetAreRefusedNamingTheField() {
    var four =
        refused(new BrowserAction.Click("o1", "e1", BrowserAction.Click.Button.LEFT, 4, null));
    assertEquals(ErrorCode.BROWSER_INVALID_ARGUMENT, four.code());
    assertTrue(four.getMessage().startsWith("/click_count"), four.getMessage());
    var negative =
        refused(
            new BrowserAction.Click(
                "o1",
                "e1",
                BrowserAction.Click.Button.LEFT,
                1,
                new BrowserAction.Click.Offset(-1, 0)));
    assertTrue(negative.getMessage().startsWith("/offset_x"), negative.getMessage());
    var unknown = assertThrows(BrowserException.class, () -> BrowserAction.Click.Button.of("side"));
    assertTrue(unknown.getMessage().contains("left, right, middle"), unknown.getMessage());
  }

  @Test
  void aDragNamesTwoRefsOfOneObservationAndNeverDropsAnElementOnItself() {
    var drag = new BrowserAction.Drag("o1", "e1", "e2");
    drag.validate();
    assertEquals(new BrowserAction.ElementTarget("o1", "e2"), drag.destination());
    assertFalse(drag.repeatable());
    assertTrue(refused(new BrowserAction.Drag("o1", "e1", "e1")).getMessage().contains("itself"));
    assertTrue(
        refused(new BrowserAction.Drag("o1", "e1", null))
            .getMessage()
            .startsWith("/to_element_ref"));
    assertNull(new BrowserAction.Click("o1", "e1").destination());
  }

  @Test
  void typedTextIsBoundedFreeOfControlKeysOtherThanEnterAndNeverRecorded() {
    var typed = new BrowserAction.Type(null, null, "open sesame\n", 10);
    typed.validate();
    assertEquals("[REDACTED]", typed.describe().get("value"));
    assertEquals(12, typed.describe().get("value_length"));
    assertFalse(typed.toString().contains("sesame"), typed.toString());
    assertEquals(1_000 + 12 * 10 + 5_000, typed.timeoutMs(1_000, 5_000));

    assertTrue(refused(new BrowserAction.Type(null, null, "", 0)).getMessage().startsWith("/text"));
    assertTrue(
        refused(new BrowserAction.Type(null, null, "x".repeat(1_001), 0))
            .getMessage()
            .contains("browser_fill"));
    assertTrue(
        refused(new BrowserAction.Type(null, null, "a\u001bb", 0)).getMessage().contains("U+001B"));
    assertTrue(
        refused(new BrowserAction.Type(null, null, "ab", 201))
            .getMessage()
            .startsWith("/delay_ms"));
    assertTrue(
        refused(new BrowserAction.Type(null, null, "x".repeat(1_000), 21))
            .getMessage()
            .contains("more than 20000"));
  }
}
