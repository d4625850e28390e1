// queue.js: placeholder until the waiting page's script lands
