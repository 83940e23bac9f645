package dev.periscope.examples.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A stand-in for a language model, for where no model service is reachable: a fixed plan carried
 * out on what LangChain4j hands it, as a model would. The task names a URL and a button in quotes
 * ({@code Open http://... and click the button "Add to cart"}); it calls {@code browser_open} on
 * the URL, finds the button's ref and the observation's id in the result it is given (the JSON of
 * the observation), calls {@code browser_click} with them, and answers with the page text the click
 * left, quoted. It never knows a ref in advance.
 */
public final class ScriptedChatModel implements ChatModel {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern URL = Pattern.compile("https?://[^\\s\"']+");
  private static final Pattern QUOTED = Pattern.compile("\"([^\"]+)\"");

  private final List<String> toolResultsSeen = new CopyOnWriteArrayList<>();
  private final List<List<String>> toolsOffered = new CopyOnWriteArrayList<>();

  /** Each tool result's text as LangChain4j gave it, in order. */
  public List<String> toolResultsSeen() {
    return List.copyOf(toolResultsSeen);
  }

  /** The names of the tools offered with each request, in order. */
  public List<List<String>> toolsOffered() {
    return List.copyOf(toolsOffered);
  }

  @Override
  public ChatResponse doChat(ChatRequest request) {
    List<String> tools =
        request.toolSpecifications() == null
            ? List.of()
            : request.toolSpecifications().stream().map(ToolSpecification::name).toList();
    toolsOffered.add(tools);
    List<ChatMessage> messages = request.messages();
    String task = lastUserText(messages);
    ChatMessage last = messages.get(messages.size() - 1);

    if (!(last instanceof ToolExecutionResultMessage result)) {
      Matcher url = URL.matcher(task);
      if (!url.find()) {
        return answer("Which page should I open? I found no http(s) URL in the task.");
      }
      if (!tools.contains("browser_open")) {
        return answer("I was given no browser_open tool, only " + tools + ".");
      }
      return call("browser_open", JSON.createObjectNode().put("url", url.group()));
    }

    toolResultsSeen.add(result.text());
    JsonNode seen = parse(result.text());
    JsonNode observation = seen.path("observation");
    if (observation.isMissingNode()) {
      String why = seen.path("error").path("message").asText(result.text());
      return answer(result.toolName() + " did not give me an observation: " + why);
    }
    if (result.toolName().equals("browser_open")) {
      Matcher quoted = QUOTED.matcher(task);
      if (!quoted.find()) {
        return answer("The page is open; the task names no button in quotes to click.");
      }
      String button = quoted.group(1);
      String ref = refOf(observation, button);
      if (ref == null) {
        return answer(
            "The page shows no button named \""
                + button
                + "\"; its elements are "
                + names(observation)
                + ".");
      }
      ObjectNode args =
          JSON.createObjectNode()
              .put("observation_id", observation.path("id").asText())
              .put("element_ref", ref);
      return call("browser_click", args);
    }
    return answer(
        "I clicked it. The page ("
            + observation.path("url").asText()
            + ") now shows: \""
            + pageText(observation)
            + "\"");
  }

  private static String lastUserText(List<ChatMessage> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i) instanceof UserMessage user && user.hasSingleText()) {
        return user.singleText();
      }
    }
    return "";
  }

  /**
   * The tool result as JSON: LangChain4j gives a model the structured content when there is one.
   */
  private static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException notJson) {
      ObjectNode failure = JSON.createObjectNode();
      failure.putObject("error").put("message", "not JSON: " + text);
      return failure;
    }
  }

  /** The ref of the first button or link whose name is {@code name}, ignoring case. */
  private static String refOf(JsonNode observation, String name) {
    for (JsonNode e : observation.path("elements")) {
      String role = e.path("role").asText("link"); // a link's role is left out
      if ((role.equals("button") || role.equals("link"))
          && e.path("name").asText().strip().equalsIgnoreCase(name.strip())) {
        return e.path("ref").asText();
      }
    }
    return null;
  }

  private static String names(JsonNode observation) {
    List<String> names = new ArrayList<>();
    observation.path("elements").forEach(e -> names.add(e.path("name").asText()));
    return names.toString();
  }

  /**
   * The page's text lines, without the lines that only stand for a listed element ({@code [e1]}).
   */
  private static String pageText(JsonNode observation) {
    return observation
        .path("text")
        .asText()
        .lines()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.matches("\\[[eg]\\d+\\]"))
        .collect(Collectors.joining(" / "));
  }

  private static ChatResponse call(String tool, ObjectNode arguments) {
    ToolExecutionRequest request =
        ToolExecutionRequest.builder()
            .id(tool + "-" + Long.toHexString(System.nanoTime()).toLowerCase(Locale.ROOT))
            .name(tool)
            .arguments(arguments.toString())
            .build();
    return ChatResponse.builder()
        .aiMessage(AiMessage.from(request))
        .finishReason(FinishReason.TOOL_EXECUTION)
        .build();
  }

  private static ChatResponse answer(String text) {
    return ChatResponse.builder()
        .aiMessage(AiMessage.from(text))
        .finishReason(FinishReason.STOP)
        .build();
  }
}
