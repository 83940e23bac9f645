package dev.periscope.api.tool;

import dev.periscope.api.Cancellation;
import java.util.Map;

/**
 * One call: the JSON arguments (maps, lists, strings, numbers, booleans), the host's agent-session
 * id the call belongs to, and the caller's cancellation signal.
 */
public record ToolCall(
    Map<String, Object> arguments, String agentSessionId, Cancellation cancellation) {
  public ToolCall {
    arguments = arguments == null ? Map.of() : arguments;
  }
}
