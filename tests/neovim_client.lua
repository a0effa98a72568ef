-- Neovim as padlint's LSP client, headless (tests/test_server.py::test_neovim_headless).
-- Opens the buffer given on the command line with `padlint server` attached, writes each diagnostic
-- and code action it gets to result.txt, applies the first quick fix as Neovim would, and writes
-- how many diagnostics are left once the server has linted the changed buffer.
local out = {}
local function say(line)
  table.insert(out, line)
end
local buf = vim.api.nvim_get_current_buf()
local client = vim.lsp.start_client({
  name = "padlint",
  cmd = { vim.env.PADLINT_PYTHON, "-m", "padlint", "server" },
  root_dir = vim.fn.getcwd(),
})
vim.lsp.buf_attach_client(buf, client)
local function diagnostics()
  return vim.diagnostic.get(buf)
end
vim.wait(60000, function()
  return #diagnostics() > 0
end, 50)
for _, d in ipairs(diagnostics()) do
  say(string.format("diagnostic %s %d:%d-%d:%d %d", d.code, d.lnum, d.col, d.end_lnum, d.end_col, d.severity))
end
local first = diagnostics()[1]
local where = { line = first.lnum, character = first.col }
local params = {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = { start = where, ["end"] = where },
  context = { diagnostics = {} },
}
local chosen
for _, response in pairs(vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 60000) or {}) do
  for _, action in ipairs(response.result or {}) do
    say("action " .. action.title)
    if not chosen and action.kind == "quickfix" then
      chosen = action
    end
  end
end
vim.lsp.util.apply_workspace_edit(chosen.edit, "utf-16")
vim.wait(60000, function()
  return #diagnostics() == 0
end, 50)
say("left " .. #diagnostics())
say("text " .. table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"))
vim.fn.writefile(vim.split(table.concat(out, "\n"), "\n"), "result.txt")
vim.cmd("qa!")
