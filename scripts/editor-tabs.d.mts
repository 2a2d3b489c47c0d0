// Types of scripts/editor-tabs.mjs for the TypeScript browser tests.
import type { Locator, Page } from 'playwright-core';

export declare function sidebarTabButton(page: Page, id: string): Locator;
export declare function showSidebarTab(page: Page, id: string, content: string): Promise<void>;
export declare function sidebarTabName(page: Page, id: string): Promise<string>;
export declare function isNodeHighlighted(page: Page, id: string): Promise<boolean>;
