// Bounds on what one GraphQL document may ask of the token endpoint. The rate limit counts HTTP
// requests per client address, so a document must not carry many sign-in attempts (aliases,
// fragments), nor cost much to parse and validate before any attempt is made.
import {
  GraphQLError,
  parse,
  type ASTNode,
  type ASTVisitor,
  type DocumentNode,
  type Source,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

/** The documented mutation is about 150 characters; a client's own formatting fits in 4 KiB. */
const MAX_DOCUMENT_CHARS = 4096;
/** Lexical tokens: the documented mutation has ~30. graphql-js stops parsing past this. */
const MAX_TOKENS = 512;
/** Nesting of selection sets: `mutation { obtainToken { token } }` is 2 deep. */
const MAX_DEPTH = 4;
/** The token fields: each call is one API-key guess or one refresh. */
const TOKEN_FIELDS = new Set(['obtainToken']);

function limitError(code: string, message: string, node?: ASTNode): GraphQLError {
  return new GraphQLError(message, { nodes: node, extensions: { code, errorType: 'VALIDATION' } });
}

/** graphql-js's parse with a token budget, so a huge or deeply nested document fails early. */
export function boundedParse(source: string | Source): DocumentNode {
  const text = typeof source === 'string' ? source : source.body;
  if (text.length > MAX_DOCUMENT_CHARS) {
    throw limitError('document_too_large', `The GraphQL document is over ${MAX_DOCUMENT_CHARS} characters.`);
  }
  try {
    return parse(source, { maxTokens: MAX_TOKENS });
  } catch (err) {
    if (err instanceof GraphQLError && /tokens\. Parsing aborted/.test(err.message)) {
      throw limitError('document_too_large', `The GraphQL document has more than ${MAX_TOKENS} tokens.`);
    }
    throw err;
  }
}

/** Selection sets nested deeper than MAX_DEPTH, counted in the text (fragments are bounded by the token budget). */
export const maxDepthRule: ValidationRule = (context: ValidationContext): ASTVisitor => {
  let depth = 0;
  let reported = false;
  return {
    SelectionSet: {
      enter(node) {
        depth += 1;
        if (depth > MAX_DEPTH && !reported) {
          reported = true;
          context.reportError(
            limitError('document_too_deep', `Selections may nest at most ${MAX_DEPTH} levels.`, node),
          );
        }
      },
      leave() {
        depth -= 1;
      },
    },
  };
};

/** At most one token field in the whole document, whatever aliases, fragments or operations carry it. */
export const singleTokenRequestRule: ValidationRule = (context: ValidationContext): ASTVisitor => {
  let seen = 0;
  return {
    Field(node) {
      if (!TOKEN_FIELDS.has(node.name.value)) return;
      seen += 1;
      if (seen === 2) {
        context.reportError(
          limitError(
            'too_many_token_requests',
            'A document may call obtainToken once; send one request per token.',
            node,
          ),
        );
      }
    },
  };
};
