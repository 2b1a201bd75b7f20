/**
 * durable-agent/web: agents in web apps. A chat handler from a Web-standard Request to a Response, speaking the AI SDK
 * UI message stream (useChat) and AG-UI over the run's one event stream (docs/web.md).
 */
export {};
