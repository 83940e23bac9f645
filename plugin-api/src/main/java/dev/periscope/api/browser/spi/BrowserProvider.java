package dev.periscope.api.browser.spi;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.Persistence;
import java.util.Optional;
import java.util.Set;

/**
 * Opens browser environments. A provider has a unique id, truthful capability flags, and says
 * whether it is available; when it is not, {@link #unavailableReason()} names the remedy (a missing
 * Chromium names its install command). {@link #open} keeps ownership of partial resources until it
 * returns: a failed open leaves nothing running. After it returns, the runtime owns the
 * environment.
 *
 * <p>Threading: thread-safe. The runtime may open several environments at once, each on a thread of
 * its own, and asks {@link #available()} from any thread.
 */
public interface BrowserProvider {
  String id();

  Set<Capability> capabilities();

  boolean available();

  Optional<String> unavailableReason();

  /**
   * What a project can set to have this provider enforce the network policy, when it does not
   * ({@link Capability#NETWORK_POLICY} missing) but could: the runtime's refusal names it.
   */
  default Optional<String> policyRemedy() {
    return Optional.empty();
  }

  /** The provider build, recorded with checkpoints. */
  default Optional<String> version() {
    return Optional.empty();
  }

  BrowserEnvironment open(OpenRequest request, Cancellation cancellation);

  /** Provider-wide cleanup, called once after every environment it opened is closed. */
  default void dispose() {}

  /**
   * What an environment is opened for, and the {@link EnvironmentPolicy} it must keep: a provider
   * enforces the network policy only if it advertises {@link Capability#NETWORK_POLICY} (the
   * runtime refuses it otherwise, except in {@link NetworkPolicy.Mode#UNRESTRICTED} mode), and
   * applies the timeouts, viewport and screenshot limits in every case.
   */
  record OpenRequest(
      BrowserSessionId sessionId, Persistence persistence, EnvironmentPolicy policy) {
    public OpenRequest {
      java.util.Objects.requireNonNull(sessionId, "sessionId");
      java.util.Objects.requireNonNull(persistence, "persistence");
      java.util.Objects.requireNonNull(policy, "policy");
    }
  }
}
