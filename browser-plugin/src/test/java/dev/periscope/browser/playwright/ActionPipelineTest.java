package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/** The stages an action passes through, each alone: order, ending early, failures passing out. */
class ActionPipelineTest {
  private final List<String> log = new ArrayList<>();

  /** A stage that logs as it enters and leaves, and what it saw fail. */
  private ActionStage logging(String name) {
    return new ActionStage() {
      @Override
      public <T> T around(String what, Callable<T> rest) throws Exception {
        log.add(name + " enters " + what);
        try {
          T result = rest.call();
          log.add(name + " leaves");
          return result;
        } catch (Exception e) {
          log.add(name + " saw " + e.getMessage());
          throw e;
        }
      }
    };
  }

  @Test
  void theFirstStageIsOutermostAndTheActionRunsInsideTheLast() throws Exception {
    var pipeline = ActionPipeline.of(logging("dialogs"), logging("downloads"), logging("guards"));
    String result =
        pipeline.run(
            "the click",
            () -> {
              log.add("action");
              return "done";
            });
    assertEquals("done", result);
    assertEquals(
        List.of(
            "dialogs enters the click",
            "downloads enters the click",
            "guards enters the click",
            "action",
            "guards leaves",
            "downloads leaves",
            "dialogs leaves"),
        log);
  }

  @Test
  void aStageThatEndsTheActionWhereItStandsRunsNothingAfterIt() throws Exception {
    ActionStage stopped =
        new ActionStage() {
          @Override
          public <T> T around(String what, Callable<T> rest) {
            log.add("a dialog is open");
            return null;
          }
        };
    var pipeline = ActionPipeline.of(logging("outer"), stopped, logging("inner"));
    assertNull(pipeline.run("the click", () -> log.add("action")));
    assertEquals(List.of("outer enters the click", "a dialog is open", "outer leaves"), log);
  }

  @Test
  void aFailurePassesOutThroughEveryStageInTurn() {
    var pipeline = ActionPipeline.of(logging("dialogs"), logging("downloads"));
    var failure = new IllegalStateException("the page did not answer");
    var thrown =
        assertThrows(
            IllegalStateException.class,
            () ->
                pipeline.run(
                    "typing",
                    () -> {
                      throw failure;
                    }));
    assertSame(failure, thrown);
    assertEquals(
        List.of(
            "dialogs enters typing",
            "downloads enters typing",
            "downloads saw the page did not answer",
            "dialogs saw the page did not answer"),
        log);
  }

  @Test
  void noStagesRunsTheActionAlone() throws Exception {
    assertEquals(7, ActionPipeline.of().run("nothing", () -> 7));
  }

  @Test
  void aStageOfDownloadsKeepsWhatASucceedingActionStartedAndDropsWhatAFailedOneDid(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    var downloads =
        new PageDownloads(new PlaywrightSettings.Downloads(true, 1 << 20), java.util.Set::of);
    var pipeline = ActionPipeline.of(downloads.stage(() -> "http://127.0.0.1/"));
    java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("a.txt"), "hello");
    com.microsoft.playwright.Download kept = download("a.txt", file);
    pipeline.run("the click", () -> downloads.keep(kept));
    assertEquals(List.of("a.txt"), downloads.take().stream().map(f -> f.name()).toList());

    com.microsoft.playwright.Download dropped = download("b.txt", file);
    assertThrows(
        IllegalStateException.class,
        () ->
            pipeline.run(
                "the click",
                () -> {
                  downloads.keep(dropped);
                  throw new IllegalStateException("failed");
                }));
    org.mockito.Mockito.verify(dropped).cancel();
    org.mockito.Mockito.verify(dropped).delete();
    assertEquals(List.of(), downloads.take());
    // Outside an action, nothing is the action's to keep.
    assertEquals(false, downloads.keep(download("c.txt", file)));
  }

  private static com.microsoft.playwright.Download download(String name, java.nio.file.Path at) {
    var d = org.mockito.Mockito.mock(com.microsoft.playwright.Download.class);
    org.mockito.Mockito.when(d.suggestedFilename()).thenReturn(name);
    org.mockito.Mockito.when(d.path()).thenReturn(at);
    return d;
  }
}
