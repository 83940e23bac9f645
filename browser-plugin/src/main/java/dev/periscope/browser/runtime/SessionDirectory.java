package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserSessionId;

/** Which durable browser session each host agent session uses. */
public interface SessionDirectory {
  /** The agent session's browser session, created on first use. */
  BrowserSessionId sessionFor(String agentSessionId);

  /** Gives the agent session a new browser session, its current one being discarded. */
  BrowserSessionId replace(String agentSessionId);

  /**
   * A directory that lasts as long as the process: browser sessions named after their agent
   * sessions.
   */
  static SessionDirectory inMemory() {
    java.util.Map<String, BrowserSessionId> map = new java.util.concurrent.ConcurrentHashMap<>();
    return new SessionDirectory() {
      @Override
      public BrowserSessionId sessionFor(String agentSessionId) {
        return map.computeIfAbsent(agentSessionId, id -> new BrowserSessionId("browser-of-" + id));
      }

      @Override
      public BrowserSessionId replace(String agentSessionId) {
        BrowserSessionId fresh = BrowserSessionId.random();
        map.put(agentSessionId, fresh);
        return fresh;
      }
    };
  }
}
