import { test } from "node:test";
import { existsSync } from "node:fs";
test("readme", () => { if (!existsSync("README.md")) throw new Error("no README"); });
