package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserEnvironment;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserProvider;
import dev.periscope.api.browser.Capability;
import dev.periscope.api.browser.CheckpointingEnvironment;
import dev.periscope.api.browser.CheckpointingProvider;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Persistence;
import java.util.Optional;

/**
 * Opens environments and saves them: a resuming session is restored from its newest checkpoint, through the
 * provider and provider build that wrote it, after any earlier environment of the session has finished closing;
 * the last release of a resuming session writes a checkpoint and deletes the one it replaces.
 */
final class EnvironmentOpener {
  private final CheckpointIndex checkpoints;
  private final SessionClosings closings;
  private final RuntimeSettings settings;

  EnvironmentOpener(CheckpointIndex checkpoints, SessionClosings closings, RuntimeSettings settings) {
    this.checkpoints = checkpoints;
    this.closings = closings;
    this.settings = settings;
  }

  /** Opens the slot's environment, restoring a resuming session from its newest checkpoint. */
  Environment open(DefaultBrowserRuntime.Slot slot) {
    BrowserProvider provider = slot.provider;
    BrowserProvider.OpenRequest request = new BrowserProvider.OpenRequest(slot.sessionId, slot.persistence);
    closings.await(slot.sessionId, settings.cleanupTimeoutMs());
    Optional<CheckpointIndex.Entry> saved = slot.persistence == Persistence.RESUME
        ? checkpoints.find(slot.sessionId) : Optional.empty();
    BrowserEnvironment env;
    int generation = 1;
    if (saved.isPresent()) {
      var checkpoint = saved.get().checkpoint();
      if (!checkpoint.providerId().equals(provider.id())) {
        throw new BrowserException(ErrorCode.BROWSER_CHECKPOINT_PROVIDER_MISMATCH, "browser session " + slot.sessionId
            + " was saved by provider \"" + checkpoint.providerId() + "\", not \"" + provider.id() + "\"");
      }
      if (checkpoint.providerVersion() != null && provider.version().isPresent()
          && !checkpoint.providerVersion().equals(provider.version().get())) {
        throw new BrowserException(ErrorCode.BROWSER_CHECKPOINT_VERSION_MISMATCH, "browser session " + slot.sessionId
            + " was saved by " + checkpoint.providerVersion() + " and cannot be read by " + provider.version().get());
      }
      env = ((CheckpointingProvider) provider).restore(request, checkpoint, slot.openCancellation);
      generation = saved.get().generation() + 1;
    } else {
      env = provider.open(request, slot.openCancellation);
    }
    if (provider.capabilities().contains(Capability.CHECKPOINT) && !(env instanceof CheckpointingEnvironment)) {
      env.close();
      throw new BrowserException(ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE,
          "browser provider \"" + provider.id() + "\" opened an environment that cannot be checkpointed");
    }
    return new Environment(slot.sessionId, provider, env, generation);
  }

  /** Saves a resuming session's state and replaces its previous checkpoint. */
  void checkpoint(DefaultBrowserRuntime.Slot slot, Environment env) {
    if (slot.persistence != Persistence.RESUME || !(env.delegate() instanceof CheckpointingEnvironment c)) {
      return;
    }
    var ref = c.checkpoint();
    checkpoints.put(new CheckpointIndex.Entry(slot.sessionId, ref, env.generation))
        .ifPresent(previous -> ((CheckpointingProvider) slot.provider).destroyCheckpoint(previous.checkpoint()));
  }

}
