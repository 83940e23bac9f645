package dev.periscope.api.tool;

import java.util.List;

/**
 * A tool a model can call. The host offers its {@link ToolDescriptor} to the model, validates the
 * model's arguments against the descriptor's JSON Schema, and only then calls {@link #call}.
 * Failures the model should see are results with {@code isError}; exceptions are host errors.
 */
public interface Tool {
  ToolDescriptor descriptor();

  ToolResult call(ToolCall call);

  /**
   * The result for arguments that broke the schema, so the model sees the same error shape
   * whichever side caught them. Each violation names the field (a JSON pointer such as {@code
   * /url}) and what was expected.
   */
  default ToolResult rejectArguments(List<String> violations) {
    return ToolResult.error(
        "invalid arguments for " + descriptor().name() + ": " + String.join("; ", violations));
  }
}
