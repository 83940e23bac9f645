package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolResult;
import java.util.List;
import java.util.Map;

/**
 * A browser tool: a descriptor and a body. Every failure a model should see becomes an error result whose text
 * ends with the failure line; bad arguments get {@code BROWSER_INVALID_ARGUMENT} whichever side caught them.
 */
final class BrowserTool implements Tool {
  /** What a tool does with a call; may throw {@link BrowserException}. */
  @FunctionalInterface
  interface Body {
    ToolResult run(ToolCall call);
  }

  private final ToolDescriptor descriptor;
  private final Body body;
  private final java.util.function.BiConsumer<ToolCall, BrowserException> onFailure;

  /** {@code onFailure} hears of every browser failure before the model does. */
  BrowserTool(ToolDescriptor descriptor, Body body, java.util.function.BiConsumer<ToolCall, BrowserException> onFailure) {
    this.descriptor = descriptor;
    this.body = body;
    this.onFailure = onFailure;
  }

  @Override
  public ToolDescriptor descriptor() {
    return descriptor;
  }

  @Override
  public ToolResult call(ToolCall call) {
    try {
      return body.run(call);
    } catch (BrowserException e) {
      onFailure.accept(call, e);
      return failure(e);
    } catch (java.util.concurrent.CancellationException e) {
      return failure(new BrowserException(ErrorCode.BROWSER_ACTION_CANCELLED,
          "the call was cancelled before the browser was reached; nothing was done"));
    }
  }

  @Override
  public ToolResult rejectArguments(List<String> violations) {
    return failure(new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT,
        "invalid arguments for " + descriptor.name() + ": " + String.join("; ", violations)));
  }

  static ToolResult failure(BrowserException e) {
    return ToolResult.error(e.getMessage() + "\n" + e.failureLine());
  }

  static String requiredString(Map<String, Object> args, String field) {
    Object v = args.get(field);
    if (!(v instanceof String s) || s.isEmpty()) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, "/" + field + ": a non-empty string is required");
    }
    return s;
  }

  /** An optional integer argument within [min, max], or {@code BROWSER_INVALID_ARGUMENT} naming the bound. */
  static java.util.Optional<Integer> optionalInt(Map<String, Object> args, String field, int min, int max) {
    Object v = args.get(field);
    if (v == null) {
      return java.util.Optional.empty();
    }
    if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())
        || n.doubleValue() < min || n.doubleValue() > max) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT,
          "/" + field + ": an integer from " + min + " to " + max + " is required (found " + v + ")");
    }
    return java.util.Optional.of(n.intValue());
  }

  static boolean optionalBoolean(Map<String, Object> args, String field) {
    Object v = args.get(field);
    if (v == null) {
      return false;
    }
    if (!(v instanceof Boolean b)) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, "/" + field + ": a boolean is expected");
    }
    return b;
  }
}
