package dev.periscope.browser.playwright;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * The stages an action passes through, in order, the first outermost: each runs the ones after it
 * and then the action inside itself ({@link ActionStage#around}). An environment's tab holds the
 * pipelines its actions take ({@link Tab#acting}): the checks that the page's document has come,
 * its dialogs, downloads, navigations, new windows, and the page guards.
 */
final class ActionPipeline {
  private final List<ActionStage> stages;

  private ActionPipeline(List<ActionStage> stages) {
    this.stages = List.copyOf(stages);
  }

  static ActionPipeline of(ActionStage... stages) {
    return new ActionPipeline(List.of(stages));
  }

  /** Runs {@code action}, called {@code what}, through every stage. */
  <T> T run(String what, Callable<T> action) throws Exception {
    return from(0, what, action);
  }

  private <T> T from(int stage, String what, Callable<T> action) throws Exception {
    if (stage == stages.size()) {
      return action.call();
    }
    return stages.get(stage).around(what, () -> from(stage + 1, what, action));
  }
}
