package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.tool.Content;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolResult;
import java.util.List;
import java.util.Map;

/**
 * A browser tool: a descriptor and a body. Every failure a model should see becomes an error result
 * whose text ends with the failure line and whose structured content is the same failure as data;
 * bad arguments get {@code BROWSER_INVALID_ARGUMENT} whichever side caught them.
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
  BrowserTool(
      ToolDescriptor descriptor,
      Body body,
      java.util.function.BiConsumer<ToolCall, BrowserException> onFailure) {
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
      return failure(
          new BrowserException(
              ErrorCode.BROWSER_ACTION_CANCELLED,
              "the call was cancelled before the browser was reached; nothing was done"));
    }
  }

  @Override
  public ToolResult rejectArguments(List<String> violations) {
    return failure(
        new BrowserException(
            ErrorCode.BROWSER_INVALID_ARGUMENT,
            "invalid arguments for " + descriptor.name() + ": " + String.join("; ", violations)));
  }

  /**
   * The failure line after the message, for the model; the same failure as data under {@code
   * error}, for clients. A message may quote the page (an element's name, a URL): it is not fenced,
   * but a marker in it is altered as in fenced text, so it cannot close or open a fence.
   */
  static ToolResult failure(BrowserException e) {
    return new ToolResult(
        List.of(new Content.Text(PageFence.neutralize(e.getMessage() + "\n" + e.failureLine()))),
        true,
        Map.of("error", PageFence.neutralizeAll(e.toStructured())));
  }
}
