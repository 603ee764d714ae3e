"""A realistic 60-tool registry (as several MCP servers would expose it) and requests with the tool they need."""

from __future__ import annotations

from agent_server.llm.base import ToolSpec


def _spec(name: str, description: str, *params: str) -> ToolSpec:
    props = {p: {"type": "string"} for p in params}
    return ToolSpec(name, description, {"type": "object", "properties": props, "required": list(params[:1])})


CATALOG: list[ToolSpec] = [
    # git (local repository)
    _spec("git__status", "Show the working tree status: staged, unstaged and untracked files.", "repo_path"),
    _spec("git__diff", "Show changes between the working tree and the index or a commit.", "repo_path", "target"),
    _spec("git__log", "Show the commit history with authors, dates and messages.", "repo_path", "max_count"),
    _spec("git__commit", "Record staged changes to the repository with a commit message.", "repo_path", "message"),
    _spec("git__create_branch", "Create a new branch from a base branch.", "repo_path", "branch_name", "base"),
    _spec("git__checkout", "Switch the working tree to another branch.", "repo_path", "branch_name"),
    _spec("git__blame", "Show which commit and author last modified each line of a file.", "repo_path", "file"),
    _spec("git__stash", "Stash uncommitted changes away for later.", "repo_path"),
    # files
    _spec("fs__read_text_file", "Read the complete contents of a text file.", "path"),
    _spec("fs__write_file", "Create a new file or overwrite an existing file with new content.", "path", "content"),
    _spec("fs__move_file", "Move or rename a file or directory.", "source", "destination"),
    _spec("fs__search_files", "Recursively search for files and directories matching a glob pattern.", "path"),
    _spec("fs__get_file_info", "Get metadata of a file: size, creation and modification time, permissions.", "path"),
    _spec("fs__directory_tree", "Get a recursive tree view of files and directories as JSON.", "path"),
    # github
    _spec("github__create_pull_request", "Create a new pull request in a GitHub repository.", "owner", "repo", "title"),
    _spec("github__list_pull_requests", "List pull requests in a GitHub repository, filtered by state.", "owner"),
    _spec("github__merge_pull_request", "Merge a pull request.", "owner", "repo", "pull_number"),
    _spec("github__create_issue", "Create a new issue in a GitHub repository.", "owner", "repo", "title", "body"),
    _spec("github__add_issue_comment", "Add a comment to an existing issue or pull request.", "owner", "issue_number"),
    _spec("github__search_code", "Search for code across GitHub repositories.", "query"),
    _spec("github__get_workflow_run", "Get the status and logs of a GitHub Actions workflow run.", "owner", "run_id"),
    _spec("github__create_release", "Create a tagged release with release notes.", "owner", "repo", "tag_name"),
    # jira
    _spec("jira__search_issues", "Search Jira issues with a JQL query.", "jql"),
    _spec("jira__get_issue", "Get the details of a Jira issue by its key.", "issue_key"),
    _spec("jira__create_issue", "Create a Jira issue (bug, task, story) in a project.", "project_key", "summary"),
    _spec("jira__transition_issue", "Move a Jira issue to another workflow status, e.g. In Progress or Done.", "key"),
    _spec("jira__log_work", "Log time spent on a Jira issue as a worklog entry.", "issue_key", "time_spent"),
    # database
    _spec("postgres__query", "Run a read-only SQL query against the PostgreSQL database.", "sql"),
    _spec("postgres__list_tables", "List the tables in a database schema.", "schema"),
    _spec("postgres__describe_table", "Describe the columns, types and indexes of a table.", "table"),
    _spec("postgres__explain", "Show the query plan (EXPLAIN ANALYZE) of a SQL statement.", "sql"),
    _spec("sqlite__execute", "Execute a statement on a local SQLite database file.", "db_path", "statement"),
    # http / web
    _spec("http__fetch", "Fetch a URL from the internet and return its content as markdown.", "url"),
    _spec("http__request", "Send an HTTP request with any method, headers and JSON body to an API.", "method", "url"),
    _spec("web__search", "Search the web and return the top results with titles and snippets.", "query"),
    # docker
    _spec("docker__list_containers", "List running and stopped Docker containers.", "all"),
    _spec("docker__container_logs", "Get the logs of a Docker container.", "container_id", "tail"),
    _spec("docker__build_image", "Build a Docker image from a Dockerfile.", "context_path", "tag"),
    _spec("docker__run_container", "Run a new container from an image with ports and environment.", "image"),
    _spec("docker__stop_container", "Stop a running container.", "container_id"),
    # kubernetes
    _spec("k8s__get_pods", "List pods in a Kubernetes namespace with their status and restarts.", "namespace"),
    _spec("k8s__pod_logs", "Get logs from a pod container in a Kubernetes cluster.", "pod", "namespace"),
    _spec("k8s__scale_deployment", "Scale a Kubernetes deployment to a number of replicas.", "deployment", "replicas"),
    _spec("k8s__rollout_restart", "Restart a deployment by triggering a rollout.", "deployment", "namespace"),
    _spec("k8s__apply_manifest", "Apply a YAML manifest to the cluster (kubectl apply).", "manifest"),
    # slack / notifications
    _spec("slack__post_message", "Post a message to a Slack channel.", "channel", "text"),
    _spec("slack__search_messages", "Search Slack messages across channels.", "query"),
    # observability
    _spec("sentry__list_issues", "List unresolved error issues reported to Sentry for a project.", "project"),
    _spec("sentry__get_event", "Get the stack trace and context of a Sentry error event.", "event_id"),
    _spec("grafana__query_metrics", "Query Prometheus metrics through Grafana (CPU, memory, latency).", "promql"),
    # packages / build
    _spec("npm__search_packages", "Search the npm registry for packages.", "query"),
    _spec("pypi__package_info", "Get the latest version, release date and dependencies of a PyPI package.", "name"),
    _spec("ci__run_tests", "Run the project's test suite and report failures.", "path"),
    _spec("lint__run", "Run the linter on files and report style violations.", "paths"),
    # cloud / misc
    _spec("aws__s3_list_objects", "List objects in an S3 bucket under a prefix.", "bucket", "prefix"),
    _spec("aws__s3_get_object", "Download an object from an S3 bucket.", "bucket", "key"),
    _spec("calendar__create_event", "Create a calendar event with attendees at a time.", "title", "start"),
    _spec("notion__search_pages", "Search pages in the Notion workspace.", "query"),
    _spec("memory__store_fact", "Remember a fact about the user or project for later conversations.", "fact"),
    _spec("time__convert_timezone", "Convert a time between time zones.", "time", "from_tz", "to_tz"),
]

# (request, expected tool)
REQUESTS: list[tuple[str, str]] = [
    ("open a PR for my branch against main titled 'fix login'", "github__create_pull_request"),
    ("why does the payments pod keep restarting? show me its logs", "k8s__pod_logs"),
    ("what columns does the users table have?", "postgres__describe_table"),
    ("move PROJ-123 to Done", "jira__transition_issue"),
    ("who last changed line 40 of src/auth.py", "git__blame"),
    ("commit the staged changes with message 'bump version'", "git__commit"),
    ("scale the api deployment to 5 replicas", "k8s__scale_deployment"),
    ("tell the #deploys channel on slack that the release is out", "slack__post_message"),
    ("what's the latest version of requests on PyPI?", "pypi__package_info"),
    ("show me the stack trace of the newest Sentry error", "sentry__get_event"),
    ("get the docs page at https://example.com/api and summarize it", "http__fetch"),
    ("list the running docker containers", "docker__list_containers"),
    ("rename config.yaml to settings.yaml", "fs__move_file"),
    # paraphrases with little word overlap
    ("put my uncommitted work aside so I can switch branches", "git__stash"),
    ("how much CPU is the checkout service using", "grafana__query_metrics"),
    ("file a bug about the broken login in our tracker", "jira__create_issue"),
    ("what did I change since the last commit", "git__diff"),
]
# BM25 misses "is the nightly build green" -> github__get_workflow_run (rank 22, no shared words);
# embeddings are the remedy (docs/mcp.md).
