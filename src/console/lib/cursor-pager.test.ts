import { describe, expect, test } from 'bun:test'
import { currentCursor, firstPage, fromCursorList, fromNumberedList, nextPage, pageRange, previousPage } from './cursor-pager.ts'

describe('the pager', () => {
  test('goes forward by the cursors the API gave and back through the ones it kept', () => {
    let pager = firstPage
    expect(currentCursor(pager)).toBeNull()
    pager = nextPage(pager, 'c2')
    pager = nextPage(pager, 'c3')
    expect(currentCursor(pager)).toBe('c3')
    pager = previousPage(pager)
    expect(currentCursor(pager)).toBe('c2')
    pager = previousPage(previousPage(previousPage(pager)))
    expect(pager.index).toBe(0)
    expect(currentCursor(pager)).toBeNull()
  })

  test('going forward from a page seen before forgets the pages after it', () => {
    const back = previousPage(nextPage(nextPage(firstPage, 'c2'), 'c3'))
    expect(nextPage(back, 'c3-new').cursors).toEqual([null, 'c2', 'c3-new'])
  })

  test('the last page (no next cursor) stays where it is', () => {
    const last = nextPage(firstPage, 'c2')
    expect(nextPage(last, null)).toBe(last)
  })
})

describe('pageRange', () => {
  test('says which rows are shown, of how many when known', () => {
    expect(pageRange(0, 20, 20, 345)).toBe('1–20 of 345')
    expect(pageRange(1, 20, 20)).toBe('21–40')
    expect(pageRange(17, 20, 5, 345)).toBe('341–345 of 345')
    expect(pageRange(0, 20, 0, 0)).toBe('0 of 0')
    expect(pageRange(0, 20, 0)).toBe('None')
  })
})

describe('the API lists as pages', () => {
  test('a cursor list has a next page only while hasMore', () => {
    expect(fromCursorList([1, 2], { cursor: 'abc', hasMore: true, total: 9 })).toEqual({ items: [1, 2], next: 'abc', total: 9 })
    expect(fromCursorList([1], { cursor: 'abc', hasMore: false })).toEqual({ items: [1], next: null, total: undefined })
  })

  test('a numbered list uses the page number as the cursor', () => {
    expect(fromNumberedList(['a'], 45, null, 20)).toEqual({ items: ['a'], next: '2', total: 45 })
    expect(fromNumberedList(['a'], 45, '2', 20).next).toBe('3')
    expect(fromNumberedList(['a'], 45, '3', 20).next).toBeNull()
    expect(fromNumberedList([], 0, null, 20).next).toBeNull()
  })
})
