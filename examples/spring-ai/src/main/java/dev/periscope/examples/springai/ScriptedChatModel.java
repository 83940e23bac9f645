package dev.periscope.examples.springai;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A stand-in for a real model, since none is reachable here: a {@link ChatModel} that follows a
 * fixed plan through Spring AI's own tool-calling loop, reading each tool result as a model reads
 * it. It opens a page ({@code browser_open}); finds, in the result it is handed, the observation id
 * and the ref of the button with the given name (a line such as {@code [e3] button — Add to cart});
 * clicks it ({@code browser_click}); then answers with the page text the click's result shows. No
 * ref is known in advance.
 *
 * <p>Spring AI's {@code ChatClient} runs the loop (its {@code ToolCallingAdvisor}): each answer of
 * this model that asks for tool calls is carried out through the tool callbacks, and the model is
 * called again with the results as a {@link ToolResponseMessage}. What a tool result looks like
 * there is what {@code SyncMcpToolCallback} makes of the MCP result: the JSON of its content list,
 * {@code [{"text":"..."}]} (Spring AI 2.0.1 leaves each item's {@code type} out), never its
 * structured content.
 */
public final class ScriptedChatModel implements ChatModel {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Pattern OBSERVATION = Pattern.compile("Observation (observation-\\S+)");

  /** What the model was handed: each tool result, as Spring AI gave it. */
  public record ToolResult(String tool, String responseData) {}

  private final String url;
  private final String buttonName;
  private final List<ToolResult> toolResults = new CopyOnWriteArrayList<>();
  private final List<List<String>> toolsOffered = new CopyOnWriteArrayList<>();

  public ScriptedChatModel(String url, String buttonName) {
    this.url = url;
    this.buttonName = buttonName;
  }

  /** Tool calling options, so that the chat client puts the tool callbacks into each prompt. */
  @Override
  public ChatOptions getOptions() {
    return ToolCallingChatOptions.builder().build();
  }

  @Override
  public ChatResponse call(Prompt prompt) {
    toolsOffered.add(toolNames(prompt));
    List<Message> messages = prompt.getInstructions();
    Message last = messages.get(messages.size() - 1);
    if (!(last instanceof ToolResponseMessage results)) {
      requireTool(prompt, "browser_open");
      return toolCall("call-open", "browser_open", Map.of("url", url));
    }
    ToolResponseMessage.ToolResponse result = results.getResponses().get(0);
    toolResults.add(new ToolResult(result.name(), result.responseData()));
    String text = text(result.responseData());
    if (text.startsWith("Error calling tool")) {
      return answer("The " + result.name() + " call failed: " + text);
    }
    switch (result.name()) {
      case "browser_open":
        {
          requireTool(prompt, "browser_click");
          Matcher observation = OBSERVATION.matcher(text);
          Matcher button =
              Pattern.compile("\\[(e\\d+)\\] button — " + Pattern.quote(buttonName) + "\\s*$")
                  .matcher("");
          String ref = null;
          for (String line : text.split("\n")) {
            if (button.reset(line.strip()).find()) {
              ref = button.group(1);
              break;
            }
          }
          if (!observation.find() || ref == null) {
            return answer(
                "I found no button named \"" + buttonName + "\" in:\n" + result.responseData());
          }
          return toolCall(
              "call-click",
              "browser_click",
              Map.of("observation_id", observation.group(1), "element_ref", ref));
        }
      case "browser_click":
        return answer("I pressed \"" + buttonName + "\". The page now shows:\n" + pageText(text));
      default:
        return answer("I did not expect a result of " + result.name() + ".");
    }
  }

  /** Every tool result this model was handed, in order. */
  public List<ToolResult> toolResults() {
    return List.copyOf(toolResults);
  }

  /** The names of the tools each call of this model was offered. */
  public List<List<String>> toolsOffered() {
    return List.copyOf(toolsOffered);
  }

  /**
   * The text of a tool result as Spring AI hands it over: the JSON of the MCP content list ({@code
   * [{"text":"..."}]}), whose text items are joined; anything else as it is.
   */
  static String text(String responseData) {
    String data = responseData.strip();
    if (!data.startsWith("[")) {
      return data;
    }
    JsonNode content = JSON.readTree(data);
    List<String> texts = new ArrayList<>();
    for (JsonNode item : content) {
      // Spring AI 2.0.1 writes a text item as {"text": ...}, without its "type".
      if (item.path("text").isString()) {
        texts.add(item.path("text").asString());
      }
    }
    return String.join("\n", texts);
  }

  /** The observation's page text: the lines after {@code Page text (...):}. */
  private static String pageText(String result) {
    int at = result.indexOf("\nPage text");
    if (at < 0) {
      return result;
    }
    int start = result.indexOf('\n', at + 1);
    return start < 0 ? "" : result.substring(start + 1).strip();
  }

  private static List<String> toolNames(Prompt prompt) {
    if (!(prompt.getOptions() instanceof ToolCallingChatOptions options)
        || options.getToolCallbacks() == null) {
      return List.of();
    }
    return options.getToolCallbacks().stream()
        .map(ToolCallback::getToolDefinition)
        .map(d -> d.name())
        .toList();
  }

  private static void requireTool(Prompt prompt, String name) {
    if (!toolNames(prompt).contains(name)) {
      throw new IllegalStateException(
          "the model was not offered " + name + ": " + toolNames(prompt));
    }
  }

  private static ChatResponse toolCall(String id, String tool, Map<String, String> arguments) {
    AssistantMessage message =
        AssistantMessage.builder()
            .content("")
            .toolCalls(
                List.of(
                    new AssistantMessage.ToolCall(
                        id, "function", tool, JSON.writeValueAsString(arguments))))
            .build();
    return new ChatResponse(List.of(new Generation(message)));
  }

  private static ChatResponse answer(String text) {
    return new ChatResponse(List.of(new Generation(new AssistantMessage(text))));
  }
}
