package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.TransitionRecord;
import java.util.List;

/** Where transitions are kept beyond memory: the durable {@code transitions} index, or nowhere. */
public interface TransitionLog {
  /** Appends one record; a failure throws, and the runtime only warns about it. */
  void append(TransitionRecord record);

  /** One session's records, oldest first, at most {@code limit}. */
  List<TransitionRecord> list(BrowserSessionId sessionId, int limit);

  static TransitionLog none() {
    return new TransitionLog() {
      @Override
      public void append(TransitionRecord record) {}

      @Override
      public List<TransitionRecord> list(BrowserSessionId sessionId, int limit) {
        return List.of();
      }
    };
  }
}
