package dev.periscope.api.browser.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CallDeadlineTest {
  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  @Test
  void itsInstantsComeInOrderFromTheOneTimeoutAndMargin() {
    CallDeadline d = new CallDeadline(0, 5_000, 2_000);
    assertEquals(4_000, ms(d.waitsEnd()));
    assertEquals(5_000, ms(d.timeoutEnds()));
    assertEquals(6_000, ms(d.answerBy()));
    assertEquals(7_000, ms(d.ends()));
    assertEquals(11_000, ms(d.abandon()));
    assertEquals(11_000, d.abandonAfterMs());
  }

  @Test
  void theProviderEndsHalfTheMarginPastTheTimeoutAndNeverMoreThanASecond() {
    assertEquals(300, new CallDeadline(0, 1_000, 600).answerMarginMs());
    assertEquals(1_000, new CallDeadline(0, 1_000, 60_000).answerMarginMs());
    assertEquals(0, new CallDeadline(0, 1_000, 0).answerMarginMs());
  }

  @Test
  void theWaitsOfAShortStepEndAtItsStartNotBefore() {
    CallDeadline d = new CallDeadline(42, 300, 100);
    assertEquals(42, d.waitsEnd());
  }

  @Test
  void aNegativeTimeoutOrMarginIsRefused() {
    var e = assertThrows(IllegalArgumentException.class, () -> new CallDeadline(0, -1, 0));
    assertTrue(e.getMessage().contains("not negative"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new CallDeadline(0, 1, -1));
  }

  @Test
  void whatIsLeftIsAtLeastAMillisecond() {
    assertEquals(1, CallDeadline.msLeft(System.nanoTime() - 1_000_000_000L));
    assertTrue(CallDeadline.passed(System.nanoTime() - 1));
    long left = CallDeadline.msLeft(System.nanoTime() + 60_000_000_000L);
    assertTrue(left > 59_000 && left <= 60_000, "left " + left);
  }
}
