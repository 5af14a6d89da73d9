// Preloaded (node -r) into a measured child process: prints its peak RSS on exit, so a bench reads it
// without polling /proc. One line on stderr: "peak-rss-kib <n>".
process.on('exit', () => {
  process.stderr.write(`peak-rss-kib ${process.resourceUsage().maxRSS}\n`);
});
