/**
 * Does the part before @ look like characters typed at random ("xkqzvbw", "asdfgh", "a8f3k2j9")
 * rather than a name, a word or a role? A heuristic, documented in docs/features/verification.md; it errs towards
 * "not random", since flagging a real person is worse than missing a bot.
 *
 * The local part (without a +tag) is cut at dots, dashes, underscores and digits into words.
 * It looks random when any of these holds:
 *  1. a word of 6+ letters has more than 40% of its letter pairs outside the common pairs of
 *     English and of names written in Latin letters;
 *  2. a word of 5+ letters has no vowel (y counts as one);
 *  3. it contains a run of 5+ neighbouring keys of a keyboard row ("asdfg", "poiuy"), or a whole
 *     word is a run of 4 ("asdf", "qwer");
 *  4. letters and digits alternate 4+ times ("a8f3k2j9"), or it is a 16+ character hex string
 *     (a hash or an id).
 */
export function looksRandom(localPart: string): boolean {
  const base = localPart.split('+')[0]!.toLowerCase()
  const words = base.split(/[^a-z]+/).filter(Boolean)
  return (
    words.some((word) => word.length >= 6 && uncommonPairShare(word) > 0.4) ||
    words.some((word) => word.length >= 5 && !/[aeiouy]/.test(word)) ||
    words.some(hasKeyboardRun) ||
    letterDigitAlternations(base) >= 4 ||
    (base.length >= 16 && /^[0-9a-f]+$/.test(base) && /[0-9]/.test(base) && /[a-f]/.test(base))
  )
}

// The letter pairs that carry almost all of English text and of common given and family names.
const COMMON_PAIRS = new Set(
  (
    'th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me de hi ' +
    'ri ro ic ne ea ra ce li ch ll be ma si om ur ca el ta la ns di fo ho pe ec pr no ct us ac ot il tr ly nc ' +
    'et ut ss so rs un lo wa ge ie wh ee wi em ad ol rt po we na ul ni ts mo ow pa im mi ai sh ir su id os iv ' +
    'ia am fi ci vi pl ig tu ev ld ry mp fe bl ab gh ty op wo sa ay ex ke fr oo av ag if ap gr od bo sp rd do ' +
    'uc bu ei ov by rm ep tt oc fa ef cu rn sc gi da yo cr cl du ga qu ue ff ba ey ls va um pp ua up lu go ht ' +
    'ru ug ds lt pi rc rr eg au ck ew mu br bi pt ak pu ui rg ib tl ny ki rk ys ob mm fu ph og ms ye ud mb ip ' +
    'ub oi rl gu dr hr cc tw ft wn nu af hu nn eo vo rv nf xp gn sm fl iz ok nl my gl aw ju oa eq sy sl ps jo ' +
    'lf nv je nk kn gs dy hy ze ks xt bs ik dd cy rp sk xi oe oy ws lv dl rf eu dg wr xa yi nm eb rb tm ja ' +
    'hn yp za gg ym sw zi az zo zh ao iu ka ko ku vo ya yu ji hm sz cz wy ah uh ij dz uz zu wc yk zy rz zt yz kr'
  ).split(' '),
)

function uncommonPairShare(word: string): number {
  let uncommon = 0
  for (let i = 0; i < word.length - 1; i++) {
    if (!COMMON_PAIRS.has(word.slice(i, i + 2))) uncommon++
  }
  return uncommon / (word.length - 1)
}

const KEYBOARD_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm']

function hasKeyboardRun(word: string): boolean {
  const isRun = (text: string) =>
    KEYBOARD_ROWS.some((row) => row.includes(text) || row.includes([...text].reverse().join('')))
  if (word.length === 4) return isRun(word)
  for (let i = 0; i + 5 <= word.length; i++) if (isRun(word.slice(i, i + 5))) return true
  return false
}

function letterDigitAlternations(text: string): number {
  let count = 0
  for (let i = 1; i < text.length; i++) {
    const before = /[0-9]/.test(text[i - 1]!)
    const now = /[0-9]/.test(text[i]!)
    if (/[a-z0-9]/.test(text[i - 1]!) && /[a-z0-9]/.test(text[i]!) && before !== now) count++
  }
  return count
}
