package dev.periscope.browser.playwright;

import java.util.concurrent.Callable;

/**
 * One stage of the {@link ActionPipeline} an action passes through on its way to the page: it runs
 * the rest of the pipeline (the later stages, then the action) inside itself, and may look before
 * and after, fail it, or end it where it stands. On the lane's thread.
 */
interface ActionStage {
  /**
   * Runs {@code rest}, the rest of the pipeline, for the action called {@code what} (for the
   * failures it names).
   */
  <T> T around(String what, Callable<T> rest) throws Exception;
}
