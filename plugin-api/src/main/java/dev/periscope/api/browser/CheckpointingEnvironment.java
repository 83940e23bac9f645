package dev.periscope.api.browser;

/** An environment whose state (cookies, local storage) can be saved as a checkpoint. */
public interface CheckpointingEnvironment extends BrowserEnvironment {
  CheckpointRef checkpoint();
}
