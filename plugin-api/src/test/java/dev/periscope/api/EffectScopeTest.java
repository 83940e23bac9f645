package dev.periscope.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EffectScopeTest {
  @Test
  void closesEffectsInReverseOrderContinuingPastFailuresAndReportingThemTogether() {
    List<String> closed = new ArrayList<>();
    EffectScope scope = new EffectScope();
    scope.add(() -> closed.add("first"));
    scope.add(
        () -> {
          closed.add("second");
          throw new IllegalStateException("second broke");
        });
    scope.add(
        () -> {
          closed.add("third");
          throw new IllegalStateException("third broke");
        });
    var e = assertThrows(EffectScope.EffectsFailedException.class, scope::close);
    assertEquals(List.of("third", "second", "first"), closed);
    assertEquals(2, e.getSuppressed().length);
    assertEquals("third broke", e.getSuppressed()[0].getMessage());
  }

  @Test
  void closesAnEffectAddedAfterTheScopeClosed() throws Exception {
    List<String> closed = new ArrayList<>();
    EffectScope scope = new EffectScope();
    scope.close();
    assertThrows(IllegalStateException.class, () -> scope.add(() -> closed.add("late")));
    assertEquals(List.of("late"), closed);
  }

  @Test
  void cancellingOneSignalRunsOnlyItsCallbacks() {
    Cancellation a = Cancellation.none();
    Cancellation b = Cancellation.none();
    List<String> ran = new ArrayList<>();
    a.onCancel(() -> ran.add("a"));
    b.onCancel(() -> ran.add("b"));
    a.cancel();
    a.cancel();
    assertEquals(List.of("a"), ran);
    assertEquals(false, b.isCancelled());
  }
}
