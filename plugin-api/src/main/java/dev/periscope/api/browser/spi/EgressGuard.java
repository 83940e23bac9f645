package dev.periscope.api.browser.spi;

/**
 * The runtime's judge of what leaves an environment once a secret is in one of its pages ({@link
 * BrowserEnvironment#guardEgress}): it knows the secrets and where each may go; the provider shows
 * it every request before the request leaves, and refuses those it refuses. Its answers never hold
 * a secret's value. Called on any thread. Since host API 2.11.0.
 */
public interface EgressGuard {
  /**
   * Judges a request to {@code url} (its headers and body; {@code body} may be empty) or a message
   * a page sends over a WebSocket to {@code url} (its text or bytes as {@code body}, no headers).
   * Empty when it may leave; otherwise the page event that tells of its refusal, naming the
   * destination's origin and the references of the secrets it carried. The runtime records each
   * refusal in the session's journal itself.
   */
  java.util.Optional<String> refusal(
      String url, java.util.Map<String, String> headers, byte[] body);
}
